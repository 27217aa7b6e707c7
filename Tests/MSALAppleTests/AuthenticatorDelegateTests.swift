#if canImport(UIKit) && !os(watchOS) && !os(tvOS)
import Foundation
import MSAL
import MSALEmulator
import MSALTestSupport
import MSALTesting
import Testing
import UIKit

/// The seeds' iOS tutorial's scene delegate method, as the tutorial gives it (Tests/AppleTutorial type-checks the
/// whole tutorial, its app delegate's `application(_:open:options:)` too, which the iOS 26 SDK these tests are built
/// with deprecates; both hand the URL and its source application to `handleMSALResponse`).
final class SeedSceneDelegate: UIResponder, UIWindowSceneDelegate {
    func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {
        guard let urlContext = URLContexts.first else {
            return
        }
        let url = urlContext.url
        let sourceApp = urlContext.options.sourceApplication
        MSALPublicClientApplication.handleMSALResponse(url, sourceApplication: sourceApp)
    }
}

extension AppleSurfaceTests {
    /// Microsoft Authenticator installed on the device (the stand-in's `canOpenURL` answers for `msauthv2` and
    /// `msauthv3`): `acquireToken` opens the broker's request with the shared application, the emulator answers as
    /// Authenticator would, and the seeds' `SceneDelegate` hands the answer to MSAL, which completes
    /// the pending sign-in with the broker's tokens.
    @Suite("Microsoft Authenticator through the seeds' delegates") struct AuthenticatorDelegateTests {
        @Test @MainActor func thePendingSignInCompletesWithTheBrokersTokens() async throws {
            AppleFixture.resetKeychain()
            SurfaceScreen.resetOpenedURLs()
            SurfaceScreen.openableSchemes = ["msauthv2", "msauthv3"]
            defer { SurfaceScreen.openableSchemes = [] }
            let (emulator, app) = try await AppleFixture.emulatorApp()
            let shown = ShownController()
            let parameters = MSALInteractiveTokenParameters(
                scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(authPresentationViewController: shown.controller))
            let signIn = Task { try await app.acquireToken(with: parameters) }
            // Bounded wait for the condition: the request opened in Authenticator. (Not `eventually`: its description
            // autoclosure cannot cross from the main actor under Swift 6.)
            for _ in 0..<2000 where SurfaceScreen.openedURLs.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            let request = try #require(SurfaceScreen.openedURLs.first)
            #expect(request.scheme == "msauthv2" && request.host == "broker")
            let answer = try #require(await emulator.authenticatorAnswer(to: request))
            let source = "com.microsoft.azureauthenticator"
            let context = UIOpenURLContext(surfaceURL: answer, options: UIScene.OpenURLOptions(surfaceSourceApplication: source))
            SeedSceneDelegate().scene(UIWindowScene(surfaceActivationState: .foregroundActive), openURLContexts: [context])
            let result = try await signIn.value
            #expect(result.metadata.tokenSource == .broker)
            #expect(result.account.username == emulator.username)
            // The broker's refresh token is in the keychain cache: the next token comes silently.
            let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
            silent.forceRefresh = true
            #expect(try await app.acquireTokenSilent(with: silent).metadata.tokenSource == .identityProvider)
            await emulator.stop()
        }
    }
}
#endif
