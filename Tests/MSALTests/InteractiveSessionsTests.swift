import MSALTesting
import Foundation
import MSALTestSupport
import Testing
import MSAL
@testable import MSALCore

/// `cancelCurrentWebAuthSession()` reaches every interactive sign-in in the process, not only the first. The
/// applications here register in a private set of sessions, so that sign-ins of tests running alongside are not
/// cancelled; the public method cancels ``InteractiveSessions/process`` the same way.
@Suite("Interactive sessions", .serialized)
struct InteractiveSessionsTests {
    /// A user agent that waits until its task is cancelled.
    struct WaitingAuthenticator: MSALDirectWebAuthenticator {
        func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
            try await Gate().pass()
            throw CancellationError()
        }
    }

    @Test func cancelReachesEverySignIn() async throws {
        let sessions = InteractiveSessions()
        func app(_ name: String) throws -> MSALPublicClientApplication {
            let provider = MSALScriptedIdentityProvider(host: "login-\(name)-\(UUID().uuidString.prefix(6).lowercased()).example.com")
            let authority = try MSALAADAuthority(url: URL(string: "https://\(provider.host)/common")!)
            let config = MSALPublicClientApplicationConfig(clientId: provider.clientId, redirectUri: "http://localhost", authority: authority)
            config.httpClient = provider
            config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
            return try MSALPublicClientApplication(configuration: config, platform: .init(httpClient: provider), sessions: sessions)
        }
        let first = try app("one")
        let second = try app("two")
        func parameters() -> MSALInteractiveTokenParameters {
            let webview = MSALWebviewParameters()
            webview.webAuthenticator = WaitingAuthenticator()
            return MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        }
        let signIns = [first, second].map { app in
            Task { () -> MSALErrorInfo? in
                do {
                    _ = try await app.acquireToken(with: parameters())
                    return nil
                } catch let error as MSALErrorInfo {
                    return error
                } catch {
                    Issue.record("not an MSAL error: \(error)")
                    return nil
                }
            }
        }
        defer { for signIn in signIns { signIn.cancel() } }
        // Both sign-ins reach their user agent.
        try await eventually("both sign-ins start") { sessions.count == 2 }
        #expect(sessions.cancelAll())
        for signIn in signIns {
            let error = try await value(of: Task { await signIn.value })
            #expect(error?.code == .userCanceled)
        }
        #expect(sessions.count == 0)
        #expect(!sessions.cancelAll())
    }
}
