// The seeds' iOS tutorial ("Tutorial: sign in users and call Microsoft Graph from an iOS or macOS app"), its
// ViewController, AppDelegate and SceneDelegate code for iOS exactly as the tutorial gives it: every Swift block of the
// iOS path, in the tutorial's order, unchanged (the `// ---- seed block` lines name where each starts). Only the
// class declarations around them are ours. scripts/apple-surface.sh type-checks it against the package built with the
// transcribed Apple SDK surface, with Objective-C interop on for its `@objc` and `#selector`.
import UIKit
import MSAL

class AppDelegate: UIResponder, UIApplicationDelegate {
// ---- seed block at line 419 ----
// Inside AppDelegate...
func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey : Any] = [:]) -> Bool {

        return MSALPublicClientApplication.handleMSALResponse(url, sourceApplication: options[UIApplication.OpenURLOptionsKey.sourceApplication] as? String)
}

}

class SceneDelegate: UIResponder, UIWindowSceneDelegate {
// ---- seed block at line 431 ----
func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {

        guard let urlContext = URLContexts.first else {
            return
        }

        let url = urlContext.url
        let sourceApp = urlContext.options.sourceApplication

        MSALPublicClientApplication.handleMSALResponse(url, sourceApplication: sourceApp)
    }
}
