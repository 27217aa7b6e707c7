import Foundation
import MSALTestSupport
@testable import MSAL
@testable import MSALCore
import MSALEmulator
import MSALLoopback
import Testing

/// The system-browser authenticator through the library, with openers that stand in for the browser.
@Suite("System browser authenticator", .serialized)
struct SystemBrowserAuthenticatorTests {
    @Test func requestParametersReachTheAuthorizeURL() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let app = try makeApplication(emulator)
        let opener = AnsweringOpener(answer: ["error": "access_denied", "error_description": "declined"])
        let output = CollectedOutput()
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: opener, timeout: .seconds(20), output: output.sink)

        let parameters = interactiveParameters(["User.Read"], authenticator)
        parameters.promptType = .consent
        parameters.loginHint = "adele@contoso.onmicrosoft.com"
        parameters.domainHint = "contoso.com"
        parameters.extraScopesToConsent = ["Mail.Read"]
        parameters.extraQueryParameters = ["dc": "ESTS-PUB-WUS", "msafed": "0"]
        let organizations = URL(string: "\(emulator.httpURL.absoluteString)/organizations")!
        parameters.authority = try MSALAuthority(url: organizations)
        await #expect { try await app.acquireToken(with: parameters) } throws: { error in
            (error as? MSALErrorInfo)?.oauthError == "access_denied"
        }

        let url = try #require(opener.opened.current.first)
        #expect(url.path.hasPrefix("/organizations/"))
        let query = opener.query()
        #expect(query["prompt"] == "consent")
        #expect(query["login_hint"] == "adele@contoso.onmicrosoft.com")
        #expect(query["domain_hint"] == "contoso.com")
        #expect(query["scope"]?.split(separator: " ").contains("Mail.Read") == true)
        #expect(query["scope"]?.split(separator: " ").contains("User.Read") == true)
        #expect(query["dc"] == "ESTS-PUB-WUS")
        #expect(query["msafed"] == "0")
        #expect(query["code_challenge_method"] == "S256")
        let redirect = try #require(query["redirect_uri"].flatMap(URLComponents.init(string:)))
        #expect(redirect.scheme == "http" && redirect.host == "localhost" && (redirect.port ?? 0) > 0)
        #expect(redirect.path.isEmpty)
        #expect(output.text.contains(url.absoluteString))
    }

    @Test func theAccountBecomesTheLoginHintAndFormPostWorks() async throws {
        let emulator = try await startAutoApprovingEmulator()
        defer { Task { await emulator.stop() } }
        let app = try makeApplication(emulator)
        let signIn = MSALSystemBrowserWebAuthenticator(opener: AutoApproveOpener(), timeout: .seconds(20), output: { _ in })
        let account = try await app.acquireToken(with: interactiveParameters(["User.Read"], signIn)).account
        #expect(account.username == emulator.username)
        var opener = AnsweringOpener(answer: ["error": "interaction_required"])
        opener.method = "POST"
        let parameters = interactiveParameters(["User.Read"], MSALSystemBrowserWebAuthenticator(opener: opener,
                                                                                             output: { _ in }))
        parameters.account = account
        parameters.promptType = .selectAccount
        await #expect { try await app.acquireToken(with: parameters) } throws: { error in
            (error as? MSALErrorInfo)?.oauthError == "interaction_required"
        }
        #expect(opener.query()["login_hint"] == emulator.username)
        #expect(opener.query()["prompt"] == "select_account")
    }

    @Test func aConfiguredLoopbackRedirectIsUsedExactly() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let probe = try await LoopbackRedirectListener.start(LoopbackConfiguration(path: "/", expectedState: "-"))
        let port = probe.port
        await probe.close()
        let redirectUri = "http://127.0.0.1:\(port)/msal/callback"
        let app = try makeApplication(emulator, redirectUri: redirectUri)
        let opener = AnsweringOpener(answer: ["error": "access_denied"])
        let parameters = interactiveParameters(["User.Read"], MSALSystemBrowserWebAuthenticator(opener: opener,
                                                                                             output: { _ in }))
        await #expect(throws: MSALErrorInfo.self) { try await app.acquireToken(with: parameters) }
        #expect(opener.query()["redirect_uri"] == redirectUri)
    }

    @Test func timeoutMeansUserCanceled() async throws {
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: SilentOpener(), timeout: .milliseconds(300),
                                                              output: { _ in })
        await #expect { try await authenticator.signIn(Self.request()) } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.code == .userCanceled && info?.internalCode == .internalErrorSessionCanceled
        }
    }

    @Test func cancellationMeansUserCanceled() async throws {
        let opener = SilentOpener()
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: opener, output: { _ in })
        // A state of its own: a listener of another test that took the freed port cannot answer the probe.
        let state = UUID().uuidString
        let task = Task { try await authenticator.signIn(Self.request(state: state)) }
        try await eventually("the browser opens") { !opener.opened.current.isEmpty }
        task.cancel()
        await #expect { try await task.value } throws: { error in
            (error as? MSALErrorInfo)?.code == .userCanceled
        }
        // The port is closed: the redirect URI no longer answers.
        let redirect = try #require(opener.opened.current.first.flatMap { Self.redirectPort($0) })
        #expect(await RawConnection.isGone(
            port: redirect, probe: "GET /?code=probe&state=\(state) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
    }

    @Test func aSecondSignInWhileOneRunsIsRefused() async throws {
        let opener = SilentOpener()
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: opener, timeout: .seconds(30), output: { _ in })
        let first = Task { try await authenticator.signIn(Self.request()) }
        try await eventually("the browser opens") { !opener.opened.current.isEmpty }
        await #expect { try await authenticator.signIn(Self.request()) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInteractiveSessionAlreadyRunning
        }
        first.cancel()
        _ = try? await first.value
    }

    @Test(arguments: ["msauth.com.example://auth", "https://localhost/cb", "http://example.com/cb",
                      "http://localhost/cb?x=1"])
    func nonLoopbackRedirectsAreRejected(_ uri: String) async throws {
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: SilentOpener(), output: { _ in })
        await #expect { try await authenticator.signIn(Self.request(redirectUri: uri)) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidRedirectURI
        }
    }

    @Test func anOpenerFailureStillLeavesThePrintedURL() async throws {
        struct FailingOpener: BrowserOpener {
            func open(_ url: URL) async throws { throw BrowserOpenerError.noBrowserStarted(["xdg-open: not found"]) }
        }
        let output = CollectedOutput()
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: FailingOpener(), timeout: .milliseconds(200),
                                                              output: output.sink)
        _ = try? await authenticator.signIn(Self.request())
        #expect(output.text.contains("https://login.example/authorize?redirect_uri=http://localhost:"))
        #expect(output.text.contains("Could not start a browser"))
    }

    @Test func endSessionOpensTheURL() async throws {
        let opener = SilentOpener()
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: opener, output: { _ in })
        let url = URL(string: "https://login.example/logout?logout_hint=a")!
        try await authenticator.endSession(url: url)
        #expect(opener.opened.current == [url])
    }

    #if !canImport(Darwin)
    @Test func theSystemBrowserIsTheDefaultOutsideApplePlatforms() throws {
        #expect(MSALPlatformServices.platformDefault.webAuthenticator is MSALSystemBrowserWebAuthenticator)
        let transport = try #require(MSALPlatformServices.platformDefault.httpClient as? DeferredHTTPClient)
        #expect(transport.resolved is MSALCurlHTTPClient)
        // Each application gets the platform's services when it is created: no process-wide default.
        let config = MSALPublicClientApplicationConfig(clientId: "11111111-2222-3333-4444-555555555555")
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let application = try MSALPublicClientApplication(configuration: config)
        #expect(application.engine.defaultAuthenticator is MSALSystemBrowserWebAuthenticator)
    }
    #endif

    @Test func browserVariableCommands() {
        let url = URL(string: "https://login.example/a?b=c&d=%20e")!
        let opener = SystemBrowserOpener(environment: ["BROWSER": "firefox --new-window:lynx -dump %s:echo 100%%;x"])
        #expect(opener.commands(for: url) == [
            ["firefox", "--new-window", url.absoluteString],
            ["lynx", "-dump", url.absoluteString],
            ["echo", "100%;x", url.absoluteString],
        ])
        #expect(SystemBrowserOpener(environment: [:]).commands(for: url).first?.first == "xdg-open")
    }

    @Test func browserVariableSkipsMissingCommands() async throws {
        let url = URL(string: "https://login.example/")!
        let missing = SystemBrowserOpener(environment: ["BROWSER": "no-such-browser-xyz", "PATH": "/nonexistent"])
        await #expect(throws: BrowserOpenerError.self) { try await missing.open(url) }
        let working = SystemBrowserOpener(environment: ["BROWSER": "no-such-browser-xyz:true", "PATH": "/usr/bin:/bin"])
        try await working.open(url)
    }

    static func request(redirectUri: String = "http://localhost", state: String = "state-1") -> MSALWebAuthenticationRequest {
        MSALWebAuthenticationRequest(redirectUri: redirectUri, state: state, correlationId: UUID(),
                                     prefersEphemeralSession: false)
    }

    static func redirectPort(_ url: URL) -> Int? {
        let value = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == "redirect_uri" }?.value
        return value.flatMap(URLComponents.init(string:))?.port
    }
}
