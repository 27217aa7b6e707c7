import Foundation
import MSAL
import MSALEmulator
import MSALLoopback
import Testing
import MSALTestSupport

/// Opens URLs in a WebDriver-controlled Chromium and goes through the emulator's pages like a person would:
/// it fills in the sign-in form, picks the account, accepts consent, and lets the browser follow the redirect.
struct WebDriverOpener: BrowserOpener {
    let session: WebDriverSession
    let username: String
    let password: String
    let visited = Locked<[String]>([])

    func open(_ url: URL) async throws {
        try await session.navigate(to: url)
        for _ in 0..<8 {
            if let form = try await session.element("#signin-form") {
                visited.update { $0.append("signin") }
                try await session.type(username, into: try await required("#username"))
                try await session.type(password, into: try await required("#password"))
                try await session.click(try await required("#signin-form #next"))
                try await waitForNavigation(from: form, "#signin-form")
            } else if let form = try await session.element("#picker-form") {
                visited.update { $0.append("picker") }
                try await session.click(try await required("#picker-form #account-0"))
                try await waitForNavigation(from: form, "#picker-form")
            } else if let form = try await session.element("#consent-form") {
                visited.update { $0.append("consent") }
                try await session.click(try await required("#consent-form #accept"))
                try await waitForNavigation(from: form, "#consent-form")
            } else {
                visited.update { $0.append("done") }
                return
            }
        }
        throw WebDriverError(description: "the sign-in pages did not end")
    }

    /// Waits until the form the click submitted is no longer the current page's (a click may return before the
    /// navigation it starts).
    private func waitForNavigation(from form: String, _ selector: String) async throws {
        for _ in 0..<150 {
            if try await session.element(selector) != form { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw WebDriverError(description: "the page did not change after submitting \(selector)")
    }

    private func required(_ selector: String) async throws -> String {
        guard let element = try await session.element(selector) else {
            throw WebDriverError(description: "no element \(selector) on \(try await session.currentURL())")
        }
        return element
    }
}

/// Sign-in end to end in a real headless Chromium: the library opens the authorization URL through its browser
/// opener, Chromium signs in on the emulator's pages and is redirected to the library's loopback listener.
@Suite("Chromium end to end", .serialized)
struct ChromiumSignInTests {
    /// `query`: the code comes back in the redirect's query; `form_post`: the emulator's auto-submitting form posts
    /// it (and an extra scope makes the consent page appear).
    @Test(.enabled(if: BrowserTools.available || BrowserTools.required, Comment(rawValue: BrowserTools.skipMessage)),
          .timeLimit(.minutes(3)), arguments: ["query", "form_post"])
    func signInGraphRefreshAndSignOutInChromium(responseMode: String) async throws {
        guard BrowserTools.available, let chromedriver = BrowserTools.chromedriver, let chromium = BrowserTools.chromium else {
            Issue.record("MSAL_BROWSER_TESTS_REQUIRED=1 but \(BrowserTools.skipMessage)")
            return
        }
        let driver = try await ChromeDriver.start(executable: chromedriver)
        defer { driver.stop() }
        let session = try await WebDriverSession.create(driver: driver, browserBinary: chromium)
        do {
            try await run(session, responseMode: responseMode)
            await session.delete()
        } catch {
            let where_ = (try? await session.currentURL()) ?? "?"
            let page = (try? await session.bodyText()) ?? ""
            await session.delete()
            Issue.record("at \(where_): \(page.prefix(500))")
            throw error
        }
    }

    private func run(_ session: WebDriverSession, responseMode: String) async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let clock = ManualClock()
        let app = try makeApplication(emulator, clock: clock)
        let opener = WebDriverOpener(session: session, username: emulator.username, password: emulator.password)
        let output = CollectedOutput()
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: opener, timeout: .seconds(90), output: output.sink)

        // Interactive sign-in: the pages in Chromium, the redirect to the loopback listener.
        let parameters = interactiveParameters(["User.Read"], authenticator)
        if responseMode == "form_post" {
            parameters.extraQueryParameters = ["response_mode": "form_post"]
            parameters.extraScopesToConsent = ["Mail.Read"]
        }
        let result = try await app.acquireToken(with: parameters)
        #expect(opener.visited.current.first == "signin")
        #expect(opener.visited.current.last == "done")
        #expect(opener.visited.current.contains("consent") == (responseMode == "form_post"))
        #expect(result.account.username == emulator.username)
        #expect(!result.accessToken.isEmpty)
        #expect(output.text.contains("http://127.0.0.1:\(emulator.httpURL.port ?? 0)/"))
        let landed = try await session.currentURL()
        #expect(landed.hasPrefix("http://localhost:"))
        #expect(try await session.bodyText().contains("sign-in is complete"))

        // Microsoft Graph /me with the token.
        let me = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/me")!
        let (status, profile) = try await getJSON(me, authorization: result.authorizationHeader)
        #expect(status == 200)
        #expect(profile["userPrincipalName"] as? String == emulator.username)

        // A silent refresh once the access token expired.
        emulator.clock.advance(by: 4000)
        clock.advance(4000)
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        let refreshed = try await app.acquireTokenSilent(with: silent)
        #expect(refreshed.accessToken != result.accessToken)
        let (refreshedStatus, _) = try await getJSON(me, authorization: refreshed.authorizationHeader)
        #expect(refreshedStatus == 200)

        // Sign-out: the cache forgets the account and the browser visits the end-session endpoint.
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = authenticator
        let signout = MSALSignoutParameters(webviewParameters: webview)
        signout.signoutFromBrowser = true
        #expect(try await app.signout(with: result.account, signoutParameters: signout))
        #expect(try app.allAccounts().isEmpty)
        #expect(try await session.currentURL().contains("/oauth2/v2.0/logout"))
        await #expect { try await app.acquireTokenSilent(with: silent) } throws: { error in
            (error as? MSALErrorInfo)?.code == .interactionRequired
        }
    }
}
