// The authentication session's presentation anchor on AppKit: the presenting controller's window, else the
// application's key window, else its main window (PresentationAnchorChoice).
#if canImport(AppKit) && !canImport(UIKit) && canImport(AuthenticationServices)
import AppKit
import AuthenticationServices

@MainActor
enum PresentationAnchors {
    /// The window to present over for a presenting controller (`MSALWebviewParameters.parentViewController`).
    static func anchor(for presenter: AnyObject?) -> ASPresentationAnchor? {
        let controller = presenter as? NSViewController
        let application = NSApplication.shared
        let front = application.keyWindow ?? application.mainWindow
        let scene = PresentationAnchorChoice<NSWindow>.Scene(isForegroundActive: true, keyWindow: front, windows: [])
        return PresentationAnchorChoice(controllerWindow: controller.flatMap { $0.isViewLoaded ? $0.view.window : nil }, scenes: [scene]).anchor
    }
}
#endif
