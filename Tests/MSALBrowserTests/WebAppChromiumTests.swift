import Foundation
import MSAL
import MSALEmulator
import Testing
import MSALExampleWebAppKit
import MSALTestSupport

/// The web-app example in a real headless Chromium: the user clicks "Sign in", signs in on the emulator's pages,
/// comes back to the app's callback, sees their Graph profile, reloads (a silent token), and signs out.
@Suite("Web app in Chromium", .serialized)
struct WebAppChromiumTests {
    @Test(.enabled(if: BrowserTools.available || BrowserTools.required, Comment(rawValue: BrowserTools.skipMessage)),
          .timeLimit(.minutes(3)))
    func signInShowGraphReloadAndSignOut() async throws {
        guard BrowserTools.available, let chromedriver = BrowserTools.chromedriver, let chromium = BrowserTools.chromium else {
            Issue.record("MSAL_BROWSER_TESTS_REQUIRED=1 but \(BrowserTools.skipMessage)")
            return
        }
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let config = MSALConfidentialClientApplicationConfig(
            clientId: EmulatorConfiguration.webAppClientId, clientCredential: .secret("emulator-secret"),
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let app = try MSALConfidentialClientApplication(configuration: config)
        let (bases, continuation) = AsyncStream<String>.makeStream()
        let server = Task {
            try await WebAppServer.run(app: app, graphEndpoint: emulator.httpURL.absoluteString, port: 0) { base in
                continuation.yield(base)
            }
        }
        defer { server.cancel() }
        var iterator = bases.makeAsyncIterator()
        let base = try #require(await iterator.next())

        let driver = try await ChromeDriver.start(executable: chromedriver)
        defer { driver.stop() }
        let session = try await WebDriverSession.create(driver: driver, browserBinary: chromium)
        do {
            try await session.navigate(to: URL(string: base + "/")!)
            #expect(try await session.element("#signin") != nil)
            // The sign-in: the emulator's pages, then the redirect to the app's callback, then its home page.
            let opener = WebDriverOpener(session: session, username: emulator.username, password: emulator.password)
            try await opener.open(URL(string: base + "/signin")!)
            #expect(opener.visited.current.first == "signin")
            try await waitFor(session, "#user")
            #expect(try await session.bodyText().contains("Signed in as Adele Vance"))
            #expect(try await session.currentURL().hasPrefix(base))
            #expect(try app.allAccounts().map(\.username) == [emulator.username])
            // Reloading: the token comes from the app's cache.
            try await session.navigate(to: URL(string: base + "/")!)
            #expect(try await session.bodyText().contains("Graph /me answered HTTP 200"))
            // Sign-out: the app forgets the account, the emulator ends its session and sends the browser back.
            try await session.navigate(to: URL(string: base + "/signout")!)
            try await waitFor(session, "#signin")
            #expect(try await session.currentURL().hasPrefix(base))
            #expect(try app.allAccounts().isEmpty)
            await session.delete()
        } catch {
            let page = (try? await session.bodyText()) ?? ""
            let url = (try? await session.currentURL()) ?? "?"
            await session.delete()
            Issue.record("at \(url): \(page.prefix(500))")
            throw error
        }
    }

    private func waitFor(_ session: WebDriverSession, _ selector: String) async throws {
        for _ in 0..<100 {
            if try await session.element(selector) != nil { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw WebDriverError(description: "no \(selector) on \(try await session.currentURL())")
    }
}
