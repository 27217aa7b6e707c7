// The authentication session's presentation anchor on UIKit: the presenting controller's window, else the key
// window of the foreground active scene (PresentationAnchorChoice); in an app extension, which has no shared
// application, only the presenting controller's window.
#if canImport(UIKit) && canImport(AuthenticationServices) && !os(tvOS) && !os(watchOS)
import AuthenticationServices
import UIKit

@MainActor
enum PresentationAnchors {
    /// The window to present over for a presenting controller (`MSALWebviewParameters.parentViewController`).
    static func anchor(for presenter: AnyObject?) -> ASPresentationAnchor? {
        let controller = presenter as? UIViewController
        let connected = SharedApplication.current?.connectedScenes ?? []
        let scenes = connected.compactMap { $0 as? UIWindowScene }.map { scene in
            PresentationAnchorChoice<UIWindow>.Scene(isForegroundActive: scene.activationState == .foregroundActive,
                                                     keyWindow: scene.keyWindow, windows: scene.windows)
        }
        return PresentationAnchorChoice(controllerWindow: controller?.viewIfLoaded?.window, scenes: scenes).anchor
    }
}
#endif
