// MSAL's own embedded sign-in view on AppKit: a titled, closable 420×650 window centred on the screen, whose close
// button cancels (as MSAL for iOS/macOS's MSIDWebviewUIController shows it on macOS).
#if canImport(WebKit) && canImport(AppKit) && !canImport(UIKit)
import AppKit
import Foundation
import WebKit

@MainActor
final class EmbeddedWebviewSheet: NSObject, EmbeddedWebviewPresentation, NSWindowDelegate {
    private let window: NSWindow
    private var onCancel: (@MainActor () -> Void)?

    private init(webView: WKWebView) {
        window = NSWindow(contentRect: NSRect(x: 0, y: 0, width: 420, height: 650), styleMask: [.titled, .closable],
                          backing: .buffered, defer: true)
        super.init()
        window.isReleasedWhenClosed = false
        webView.autoresizingMask = [.width, .height]
        window.contentView = webView
    }

    /// The window (macOS needs no parent to show it).
    static func make(_ webView: WKWebView, parameters: WebviewChoice) -> EmbeddedWebviewSheet? {
        EmbeddedWebviewSheet(webView: webView)
    }

    func show(onCancel: @escaping @MainActor () -> Void) {
        self.onCancel = onCancel
        window.delegate = self
        window.center()
        window.makeKeyAndOrderFront(nil)
    }

    func dismiss(then completion: @escaping @MainActor () -> Void) {
        window.delegate = nil
        window.close()
        completion()
    }

    func windowWillClose(_ notification: Notification) {
        onCancel?()
    }
}

/// Opens addresses the sign-in page hands to the system browser.
@MainActor
enum ExternalBrowser {
    /// Opens `url` in the default browser.
    static func open(_ url: URL) -> Bool {
        NSWorkspace.shared.open(url)
    }
}
#endif
