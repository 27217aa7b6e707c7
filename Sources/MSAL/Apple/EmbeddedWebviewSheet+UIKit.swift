// MSAL's own embedded sign-in view on UIKit: the web view in a navigation controller with a Cancel button, presented
// modally over the parent view controller (as MSAL for iOS/macOS's MSIDWebviewUIController presents it).
#if canImport(WebKit) && canImport(UIKit)
import Foundation
import UIKit
import WebKit

@MainActor
final class EmbeddedWebviewSheet: EmbeddedWebviewPresentation {
    private let parent: UIViewController
    private let navigation: UINavigationController
    private let content = UIViewController()

    private init(parent: UIViewController, webView: WKWebView, style: UIModalPresentationStyle) {
        self.parent = parent
        content.view = webView
        navigation = UINavigationController(rootViewController: content)
        navigation.modalPresentationStyle = style
        // Swiping the sheet down would leave the sign-in hanging: the Cancel button ends it.
        navigation.isModalInPresentation = true
    }

    /// The sheet over the controller to present from: the parent view controller when its view is in a window,
    /// else the top controller of the window sign-in would be anchored to; nil when there is none.
    static func make(_ webView: WKWebView, parameters: WebviewChoice) -> EmbeddedWebviewSheet? {
        let parent = parameters.presenter as? UIViewController
        let base = parent?.viewIfLoaded?.window != nil ? parent
            : PresentationAnchors.anchor(for: nil)?.rootViewController
        guard var top = base else { return nil }
        while let presented = top.presentedViewController { top = presented }
        let style = UIModalPresentationStyle(rawValue: parameters.presentationStyleRawValue) ?? .fullScreen
        return EmbeddedWebviewSheet(parent: top, webView: webView, style: style)
    }

    func show(onCancel: @escaping @MainActor () -> Void) {
        content.navigationItem.leftBarButtonItem = UIBarButtonItem(systemItem: .cancel,
                                                                   primaryAction: UIAction { _ in onCancel() })
        parent.present(navigation, animated: true, completion: nil)
    }

    func dismiss(then completion: @escaping @MainActor () -> Void) {
        guard navigation.presentingViewController != nil else {
            completion()
            return
        }
        navigation.dismiss(animated: true) { completion() }
    }
}

/// Opens addresses the sign-in page hands to the system browser.
@MainActor
enum ExternalBrowser {
    /// Opens `url` in the browser; false in an app extension, which cannot.
    static func open(_ url: URL) -> Bool {
        guard let application = SharedApplication.current else { return false }
        application.open(url, options: [:], completionHandler: nil)
        return true
    }
}
#endif
