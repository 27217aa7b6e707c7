import Foundation
import MSAL
import MSALTesting
import Security
import Testing
import AuthenticationServices
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// Interactive sign-in and browser sign-out in the authentication session: the window it is presented over, the
/// ephemeral preference, cancellation, completion off the main thread, and the end-session round trip.
extension AppleSurfaceTests {
    @MainActor
    func signIn(_ webview: MSALWebviewParameters, provider: MSALScriptedIdentityProvider) async throws -> MSALResult {
        let app = try AppleFixture.app(provider)
        return try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
    }

    @Test("Sign-in is presented over the window of the view controller passed as authPresentationViewController")
    @MainActor
    func presentsOverControllerWindow() async throws {
        AppleFixture.resetKeychain()
        SurfaceAuthenticationSessions.reset()
        let provider = MSALScriptedIdentityProvider()
        AppleFixture.answerSessions(with: provider)
        let other = ShownController()
        let shown = ShownController()
        #if canImport(UIKit)
        SurfaceScreen.connect([other.scene, shown.scene])
        #endif
        let webview = MSALWebviewParameters(authPresentationViewController: shown.controller)
        #expect(webview.parentViewController === shown.controller)
        webview.prefersEphemeralWebBrowserSession = true
        let result = try await signIn(webview, provider: provider)
        #expect(!result.accessToken.isEmpty)
        let started = try #require(SurfaceAuthenticationSessions.history.first)
        #expect(started.anchor === shown.window)
        #expect(started.anchor !== other.window)
        #expect(started.session.prefersEphemeralWebBrowserSession)
        #expect(started.session.surfaceCallbackURLScheme == "msauth.com.example.app")
    }

    #if canImport(UIKit)
    @Test("Without a controller in a window, the key window of the foreground active scene is used, not a background scene's")
    @MainActor
    func presentsOverActiveSceneKeyWindow() async throws {
        AppleFixture.resetKeychain()
        SurfaceAuthenticationSessions.reset()
        let provider = MSALScriptedIdentityProvider()
        AppleFixture.answerSessions(with: provider)
        let background = UIWindowScene(surfaceActivationState: .background)
        let backgroundWindow = UIWindow(windowScene: background)
        backgroundWindow.makeKeyAndVisible()
        let active = UIWindowScene(surfaceActivationState: .foregroundActive)
        let first = UIWindow(windowScene: active)
        let key = UIWindow(windowScene: active)
        key.makeKeyAndVisible()
        SurfaceScreen.connect([background, active])
        _ = first
        let detached = UIViewController()
        _ = try await signIn(MSALWebviewParameters(authPresentationViewController: detached), provider: provider)
        _ = try await signIn(MSALWebviewParameters(), provider: provider)
        let anchors = SurfaceAuthenticationSessions.history.map(\.anchor)
        #expect(anchors.count == 2)
        #expect(anchors.allSatisfy { $0 === key })
    }
    #endif

    @Test("With no window to present over, sign-in fails with internalErrorNoViewController and starts no session")
    @MainActor
    func noWindow() async throws {
        AppleFixture.resetKeychain()
        SurfaceAuthenticationSessions.reset()
        #if canImport(UIKit)
        SurfaceScreen.connect([UIWindowScene(surfaceActivationState: .background)])
        #else
        SurfaceScreen.reset()
        #endif
        let provider = MSALScriptedIdentityProvider()
        AppleFixture.answerSessions(with: provider)
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await self.signIn(MSALWebviewParameters(), provider: provider)
        }
        #expect(error?.internalCode == .internalErrorNoViewController)
        #expect(SurfaceAuthenticationSessions.history.isEmpty)
    }

    @Test("The session's completion handler called on a background queue, as macOS calls it, signs in (no isolation trap)")
    @MainActor
    func completionOffMainThread() async throws {
        let (provider, shown) = AppleFixture.interactive()
        AppleFixture.answerSessions(with: provider, fromBackground: true)
        let webview = MSALWebviewParameters(authPresentationViewController: shown.controller)
        let result = try await signIn(webview, provider: provider)
        #expect(!result.accessToken.isEmpty)
        #expect(SurfaceAuthenticationSessions.history.count == 1)

        SurfaceAuthenticationSessions.handler = { started in
            started.session.surfaceCompleteFromBackground(
                callbackURL: nil, error: ASWebAuthenticationSessionError(.canceledLogin))
        }
        let error = await #expect(throws: MSALErrorInfo.self) { try await self.signIn(webview, provider: provider) }
        #expect(error?.code == .userCanceled)
    }

    @Test("Closing the sheet is MSALError.userCanceled")
    @MainActor
    func userCancels() async throws {
        AppleFixture.resetKeychain()
        SurfaceAuthenticationSessions.reset()
        SurfaceAuthenticationSessions.handler = { $0.session.cancel() }
        let shown = ShownController()
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await self.signIn(MSALWebviewParameters(authPresentationViewController: shown.controller),
                                  provider: MSALScriptedIdentityProvider())
        }
        #expect(error?.code == .userCanceled)
    }

    @Test("Browser sign-out opens the end-session endpoint in the session and waits for its return to the app")
    @MainActor
    func browserSignOut() async throws {
        let (provider, shown) = AppleFixture.interactive()
        let webview = MSALWebviewParameters(authPresentationViewController: shown.controller)
        let app = try AppleFixture.app(provider)
        let result = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        let signout = MSALSignoutParameters(webviewParameters: webview)
        signout.signoutFromBrowser = true
        #expect(try await app.signout(with: result.account, signoutParameters: signout))
        let ended = try #require(SurfaceAuthenticationSessions.history.last)
        let url = ended.session.surfaceURL
        #expect(url.path.hasSuffix("/logout"))
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.contains { $0.name == "post_logout_redirect_uri" && $0.value == AppleFixture.redirectUri })
        #expect(query.contains { $0.name == "state" && !($0.value ?? "").isEmpty })
        #expect(ended.anchor === shown.window)
        #expect(try app.allAccounts().isEmpty)

        // A return with another state is refused.
        let again = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        SurfaceAuthenticationSessions.handler = { started in
            started.session.surfaceComplete(callbackURL: URL(string: "\(AppleFixture.redirectUri)?state=forged"), error: nil)
        }
        let error = await #expect(throws: MSALErrorInfo.self) {
            try await app.signout(with: again.account, signoutParameters: signout)
        }
        #expect(error?.internalCode == .internalErrorInvalidState)
    }
}
