// WebKit, as far as MSAL for Swift names it: the web view type of `MSALWebviewParameters.customWebview`.

@_exported public import Foundation
#if canImport(UIKit)
public import UIKit
/// https://developer.apple.com/documentation/webkit/wkwebview
@MainActor open class WKWebView: UIView {}
#elseif canImport(AppKit)
public import AppKit
/// https://developer.apple.com/documentation/webkit/wkwebview
@MainActor open class WKWebView: NSView {}
#endif
