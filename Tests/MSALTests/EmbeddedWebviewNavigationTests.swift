import Foundation
import MSAL
import MSALEmulator
import MSALTestSupport
import Testing
@testable import MSALCore

/// The embedded web view's navigation machine, without a web view: each rule of MSAL for iOS/macOS's embedded
/// controller, and the flow ending once.
@Suite("Embedded web view: the navigation machine")
struct EmbeddedWebviewNavigationTests {
    typealias Machine = EmbeddedWebviewNavigation
    static let redirect = "msauth.com.example.app://auth"

    func machine() -> Machine { Machine(redirectURI: Self.redirect, correlationId: UUID()) }

    func names(_ step: Machine.Step) -> [String] {
        step.notices.map {
            switch $0 {
            case .didStartLoad: "start"
            case .didFinishLoad: "finish"
            case .didFail: "fail"
            case .didComplete: "complete"
            }
        }
    }

    func error(_ step: Machine.Step) -> MSALErrorInfo? {
        if case .failure(let error) = step.outcome { return error }
        return nil
    }

    @Test("The redirect URI, matched as a prefix without regard to case, ends the flow with the response")
    func redirectEnds() throws {
        var navigation = machine()
        let page = navigation.handle(.navigation(URL(string: "https://login.example.com/common/oauth2/v2.0/authorize?x=1"),
                                                 target: .mainFrame, linkActivated: false))
        #expect(page.policy == .allow && names(page) == ["start"] && page.outcome == nil)
        let back = URL(string: "MSAUTH.com.example.APP://auth?code=abc&state=s")!
        let step = navigation.handle(.navigation(back, target: .mainFrame, linkActivated: false))
        #expect(step.policy == .cancel)
        #expect(names(step) == ["start", "complete"])
        guard case .redirect(let url) = step.outcome else { Issue.record("no redirect outcome"); return }
        #expect(url == back)
        #expect(navigation.isFinished)
    }

    @Test("Subframes and about:blank load without a start notice; a nil address is not followed")
    func framesAndBlank() {
        var navigation = machine()
        let frame = navigation.handle(.navigation(URL(string: "https://login.example.com/frame"), target: .subframe, linkActivated: false))
        #expect(frame.policy == .allow && frame.notices.isEmpty)
        let blank = navigation.handle(.navigation(URL(string: "about:blank"), target: .mainFrame, linkActivated: false))
        #expect(blank.policy == .allow && blank.notices.isEmpty)
        let none = navigation.handle(.navigation(nil, target: .mainFrame, linkActivated: false))
        #expect(none.policy == .cancel && none.outcome == nil)
        #expect(!navigation.isFinished)
    }

    @Test("Leaving https ends the flow with internalErrorNonHttpsRedirect: plain http, and an unknown scheme not clicked")
    func nonHttps() {
        for address in ["http://login.example.com/authorize", "itms-apps://apps.apple.com/app/id1"] {
            var navigation = machine()
            let step = navigation.handle(.navigation(URL(string: address), target: .mainFrame, linkActivated: false))
            #expect(step.policy == .cancel)
            #expect(error(step)?.internalCode == .internalErrorNonHttpsRedirect)
            #expect(names(step) == ["start", "fail"])
        }
    }

    @Test("A clicked link to a new window, or to another scheme, opens in the system browser; the flow goes on")
    func linksToBrowser() {
        var navigation = machine()
        let help = URL(string: "https://go.microsoft.com/fwlink/?linkid=2")!
        let window = navigation.handle(.navigation(help, target: .newWindow, linkActivated: true))
        #expect(window.policy == .cancel && window.openInBrowser == help && names(window) == ["finish"])
        let mail = URL(string: "mailto:helpdesk@example.com")!
        let mailStep = navigation.handle(.navigation(mail, target: .mainFrame, linkActivated: true))
        #expect(mailStep.openInBrowser == mail && mailStep.policy == .cancel && mailStep.outcome == nil)
        for local in ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,x"] {
            let step = navigation.handle(.navigation(URL(string: local), target: .mainFrame, linkActivated: true))
            #expect(step.policy == .cancel && step.openInBrowser == nil && step.outcome == nil)
        }
        let inPage = navigation.handle(.navigation(help, target: .mainFrame, linkActivated: true))
        #expect(inPage.policy == .allow && inPage.openInBrowser == nil)
        let opened = navigation.handle(.newWindow(help, linkActivated: false))
        #expect(opened.openInBrowser == help)
        #expect(navigation.handle(.newWindow(help, linkActivated: true)).openInBrowser == nil)
        #expect(navigation.handle(.newWindow(URL(string: "http://example.com"), linkActivated: false)).openInBrowser == nil)
        #expect(!navigation.isFinished)
    }

    @Test("browser:// opens the https address in the system browser and ends the flow as userCanceled")
    func browserScheme() {
        var navigation = machine()
        let step = navigation.handle(.navigation(URL(string: "browser://aka.ms/enroll?x=1"), target: .mainFrame, linkActivated: false))
        #expect(step.openInBrowser?.absoluteString == "https://aka.ms/enroll?x=1")
        #expect(error(step)?.code == .userCanceled)
        #expect(step.policy == .cancel)
    }

    @Test("msauth:// device registration is workplaceJoinRequired; another broker request is no authorization response")
    func msauthScheme() {
        var enroll = machine()
        #expect(error(enroll.handle(.navigation(URL(string: "msauth://enroll?cpurl=x"), target: .mainFrame, linkActivated: false)))?.code
                == .workplaceJoinRequired)
        var wpj = machine()
        #expect(error(wpj.handle(.navigation(URL(string: "MSAUTH://wpj?username=a"), target: .mainFrame, linkActivated: false)))?.code
                == .workplaceJoinRequired)
        var broker = machine()
        #expect(error(broker.handle(.navigation(URL(string: "msauth://broker?x"), target: .mainFrame, linkActivated: false)))?.internalCode
                == .internalErrorInvalidResponse)
        // The page asks to install the broker: its https link opens in the system browser.
        var install = machine()
        let step = install.handle(.navigation(URL(string: "msauth://wpj?app_link=https%3A%2F%2Fapps.apple.com%2Fapp%2Fid983156458&username=a"),
                                              target: .mainFrame, linkActivated: false))
        #expect(error(step)?.code == .workplaceJoinRequired)
        #expect(step.openInBrowser?.absoluteString == "https://apps.apple.com/app/id983156458")
    }

    /// A web view's PKeyAuth challenge (the common core's vector, `MSIDPKeyAuthHandlerTests.m:124`) is answered by
    /// loading its SubmitUrl with the answer; one without a SubmitUrl ends the flow.
    @Test func aPKeyAuthChallengeLoadsItsAnswer() throws {
        var navigation = machine()
        let challenge = URL(string: "urn:http-auth:PKeyAuth?CertAuthorities=OU%3d82dbaca4-3e81-46ca-9c73-0950c1eaca97%2cCN%3dMS-Organization-Access%2cDC%3dwindows%2cDC%3dnet&Version=1.0&Context=SOMECONTEXT&nonce=_bQWemEag2Zze-FR1kw2r-XyrDYxmQB2PftHsshTEJc&SubmitUrl=https%3a%2f%2flogin.microsoftonline.com%2fcommon%2fDeviceAuthPKeyAuth&TenantId=f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
        let step = navigation.handle(.navigation(challenge, target: .mainFrame, linkActivated: false))
        #expect(step.policy == .cancel && step.outcome == nil)
        let load = try #require(step.load)
        #expect(load.url.absoluteString.hasPrefix("https://login.microsoftonline.com/common/DeviceAuthPKeyAuth?x-client-Ver="))
        #expect(load.headers["Authorization"] == #"PKeyAuth  Context="SOMECONTEXT", Version="1.0""#)
        #expect(load.headers["x-ms-PkeyAuth+"] == "1.0")
        var incomplete = machine()
        #expect(error(incomplete.handle(.navigation(URL(string: "urn:http-auth:PKeyAuth?Context=x&Version=1.0"),
                                                    target: .mainFrame, linkActivated: false)))?.internalCode
                == .internalErrorAuthorizationFailed)
    }

    @Test("Load failures: a cancelled load and WebKit's interruptions are ignored; a network failure ends the flow")
    func loadFailures() {
        var navigation = machine()
        #expect(navigation.handle(.failedLoading(NSError(domain: NSURLErrorDomain, code: NSURLErrorCancelled))).outcome == nil)
        #expect(navigation.handle(.failedLoading(NSError(domain: "WebKitErrorDomain", code: 102))).outcome == nil)
        #expect(!navigation.isFinished)
        let offline = NSError(domain: NSURLErrorDomain, code: NSURLErrorNotConnectedToInternet,
                              userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "https://login.example.com/x?code=secret")!])
        let step = navigation.handle(.failedLoading(offline))
        let failure = error(step)
        #expect(failure?.code == .serverError)
        #expect(failure?.networkErrorKind != nil)
        #expect(failure?.errorDescription.contains("login.example.com") == true)
        #expect(failure?.errorDescription.contains("secret") == false)
        #expect(names(step) == ["fail"])
    }

    @Test("The user closing the view is userCanceled; after the end, navigations are cancelled and events ignored")
    func cancelAndAfterEnd() {
        var navigation = machine()
        let step = navigation.handle(.userCanceled)
        #expect(error(step)?.code == .userCanceled)
        #expect(names(step) == ["fail"])
        let late = navigation.handle(.navigation(URL(string: "\(Self.redirect)?code=1"), target: .mainFrame, linkActivated: false))
        #expect(late.policy == .cancel && late.notices.isEmpty && late.outcome == nil)
        #expect(navigation.handle(.userCanceled).outcome == nil)
        #expect(navigation.handle(.cancelled).outcome == nil)
        #expect(navigation.handle(.finishedLoading(nil)).notices.isEmpty)
        var task = machine()
        #expect(error(task.handle(.cancelled))?.internalCode == .internalErrorSessionCanceled)
    }
}

/// A web view without a screen: follows the emulator's redirects over HTTPS, each decided by the navigation machine,
/// as WebKit asks its navigation delegate about each one.
struct HeadlessEmbeddedWebView: MSALDirectWebAuthenticator {
    let http: any MSALHTTPClient

    func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        var navigation = EmbeddedWebviewNavigation(redirectURI: request.redirectUri, correlationId: request.correlationId,
                                                   deviceAuthentication: request.deviceAuthentication)
        var next = url
        // As WebKit with MSAL's configuration: `PKeyAuth/1.0` in the user agent, `x-ms-PkeyAuth+` on the first request.
        var headers = ["User-Agent": "Mozilla/5.0 (iPhone) PKeyAuth/1.0", "x-ms-PkeyAuth+": "1.0"]
        for _ in 0..<8 {
            let step = navigation.handle(.navigation(next, target: .mainFrame, linkActivated: false))
            switch step.outcome {
            case .redirect(let callback)?:
                return MSALWebAuthenticationResponse(redirectUri: request.redirectUri, callbackURL: callback)
            case .failure(let error)?:
                throw error
            case nil:
                break
            }
            if let load = step.load {
                // The answer to a PKeyAuth challenge, loaded instead of the navigation.
                next = load.url
                headers = load.headers.merging(["User-Agent": "Mozilla/5.0 (iPhone) PKeyAuth/1.0"]) { first, _ in first }
            } else {
                try #require(step.policy == .allow)
            }
            let response = try await http.send(MSALHTTPRequest(method: "GET", url: next, headers: headers, timeout: 30))
            headers = ["User-Agent": "Mozilla/5.0 (iPhone) PKeyAuth/1.0"]
            let location = response.headers.first { $0.key.lowercased() == "location" }?.value
            guard (300..<400).contains(response.statusCode), let location,
                  let target = URL(string: location, relativeTo: next)?.absoluteURL else {
                throw MSALErrorInfo.internal(.internalErrorUnexpected, "The page stopped at HTTP \(response.statusCode).")
            }
            next = target
        }
        throw MSALErrorInfo.internal(.internalErrorUnexpected, "Too many redirects.")
    }
}

@Suite("Embedded web view: sign-in against the emulator through the navigation machine")
struct EmbeddedWebviewEmulatorTests {
    func app(_ emulator: IdentityEmulator, authority: URL, http: any MSALHTTPClient) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId,
                                                       redirectUri: "msauth.com.example.msaldemo://auth",
                                                       authority: try MSALAADAuthority(url: authority))
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        return try MSALPublicClientApplication(configuration: config, platform: MSALPlatformServices(
            httpClient: http, webAuthenticator: nil, embeddedWebAuthenticator: HeadlessEmbeddedWebView(http: http)))
    }

    @Test(".wkWebView picks the platform's embedded web view, which signs in over HTTPS; an http authority is refused")
    func signIn() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        let http = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        let webview = MSALWebviewParameters()
        webview.webviewType = .wkWebView
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)

        let secure = try app(emulator, authority: emulator.authorityURL, http: http)
        let result = try await secure.acquireToken(with: parameters)
        #expect(!result.accessToken.isEmpty)
        #expect(result.account.username == configuration.defaults.username)
        // The platform's system user agent is not used: there is none here, and the call did not need it.
        webview.webviewType = .default
        let none = await #expect(throws: MSALErrorInfo.self) { try await secure.acquireToken(with: parameters) }
        #expect(none?.internalCode == .internalErrorNoViewController)

        webview.webviewType = .wkWebView
        let plain = try app(emulator, authority: emulator.httpURL.appendingPathComponent(emulator.tenant), http: http)
        let refused = await #expect(throws: MSALErrorInfo.self) { try await plain.acquireToken(with: parameters) }
        #expect(refused?.internalCode == .internalErrorNonHttpsRedirect)
        await emulator.stop()
    }
}
