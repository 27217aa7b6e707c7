// WebKit, as far as MSAL for Swift uses it: the web view of embedded sign-in, its configuration, and the navigation
// and UI delegates with the navigation actions they are asked about. Declarations from Apple's documentation and
// WebKit's headers (`Source/WebKit/UIProcess/API/Cocoa/WKWebView.h`, `WKNavigationDelegate.h`, `WKUIDelegate.h`,
// `WKNavigationAction.h`, `WKWebViewConfiguration.h`: `WK_SWIFT_UI_ACTOR` is `@MainActor`).
//
// Compiled in Swift 5 mode, as Swift imports Objective-C. The delegates' methods are `@objc optional` in WebKit; Swift
// on Linux has no optional requirements, so they are plain requirements here: a conforming class must spell every
// one exactly as WebKit does (a near miss compiles on a Mac and is never called; here it fails to compile).
//
// The stand-in's web view navigates: each load is decided by the navigation delegate, then answered by
// `SurfaceWebViews.loader` (a test's), which gives a page, a redirect (decided again, as WebKit decides server
// redirects) or a failure. `SurfaceWebViews` and every `surface…` member are the stand-in's, not Apple API.

@_exported public import Foundation
// Apple's Foundation includes URLRequest; Linux's keeps it in FoundationNetworking.
#if canImport(FoundationNetworking)
@_exported public import FoundationNetworking
#endif
#if canImport(UIKit)
public import UIKit
/// https://developer.apple.com/documentation/webkit/wkwebview
@MainActor open class WKWebView: UIView {
    private let surfaceState: SurfaceWebViewState

    /// https://developer.apple.com/documentation/webkit/wkwebview/init(frame:configuration:)
    public init(frame: CGRect, configuration: WKWebViewConfiguration) {
        surfaceState = SurfaceWebViewState(configuration: configuration)
        super.init(frame: frame)
    }
    public override convenience init(frame: CGRect) { self.init(frame: frame, configuration: WKWebViewConfiguration()) }
    /// https://developer.apple.com/documentation/webkit/wkwebview/init(coder:)
    public required init?(coder: NSCoder) { surfaceState = SurfaceWebViewState(configuration: WKWebViewConfiguration()); super.init(coder: coder) }

    fileprivate var state: SurfaceWebViewState { surfaceState }
}
#elseif canImport(AppKit)
public import AppKit
/// https://developer.apple.com/documentation/webkit/wkwebview
@MainActor open class WKWebView: NSView {
    private let surfaceState: SurfaceWebViewState

    /// https://developer.apple.com/documentation/webkit/wkwebview/init(frame:configuration:)
    public init(frame: CGRect, configuration: WKWebViewConfiguration) {
        surfaceState = SurfaceWebViewState(configuration: configuration)
        super.init(frame: frame)
    }
    public override convenience init(frame: CGRect) { self.init(frame: frame, configuration: WKWebViewConfiguration()) }
    /// https://developer.apple.com/documentation/webkit/wkwebview/init(coder:)
    public required init?(coder: NSCoder) { surfaceState = SurfaceWebViewState(configuration: WKWebViewConfiguration()); super.init(coder: coder) }

    fileprivate var state: SurfaceWebViewState { surfaceState }
}
#endif

/// https://developer.apple.com/documentation/webkit/wknavigationactionpolicy
public enum WKNavigationActionPolicy: Int, @unchecked Sendable {
    case cancel = 0
    case allow = 1
    case download = 2
}

/// https://developer.apple.com/documentation/webkit/wknavigationtype
public enum WKNavigationType: Int, @unchecked Sendable {
    case linkActivated = 0
    case formSubmitted = 1
    case backForward = 2
    case reload = 3
    case formResubmitted = 4
    case other = -1
}

/// https://developer.apple.com/documentation/webkit/wkframeinfo
@MainActor open class WKFrameInfo: NSObject {
    /// https://developer.apple.com/documentation/webkit/wkframeinfo/ismainframe
    open var isMainFrame: Bool { main }
    private let main: Bool
    init(surfaceMainFrame: Bool) { main = surfaceMainFrame }
}

/// https://developer.apple.com/documentation/webkit/wknavigationaction
@MainActor open class WKNavigationAction: NSObject {
    /// https://developer.apple.com/documentation/webkit/wknavigationaction/request
    open var request: URLRequest { surfaceRequest }
    /// https://developer.apple.com/documentation/webkit/wknavigationaction/targetframe (nil: a new window)
    open var targetFrame: WKFrameInfo? { surfaceTarget }
    /// https://developer.apple.com/documentation/webkit/wknavigationaction/navigationtype
    open var navigationType: WKNavigationType { surfaceType }

    private let surfaceRequest: URLRequest
    private let surfaceTarget: WKFrameInfo?
    private let surfaceType: WKNavigationType

    init(surfaceRequest: URLRequest, target: WKFrameInfo?, type: WKNavigationType) {
        self.surfaceRequest = surfaceRequest
        surfaceTarget = target
        surfaceType = type
    }
}

/// https://developer.apple.com/documentation/webkit/wknavigation
@MainActor open class WKNavigation: NSObject {}

/// https://developer.apple.com/documentation/webkit/wkwindowfeatures
@MainActor open class WKWindowFeatures: NSObject {}

/// https://developer.apple.com/documentation/webkit/wkwebsitedatastore
@MainActor open class WKWebsiteDataStore: NSObject {
    private static let persistent = WKWebsiteDataStore(surfacePersistent: true)
    /// https://developer.apple.com/documentation/webkit/wkwebsitedatastore/ispersistent
    open var isPersistent: Bool { keeps }
    private let keeps: Bool
    private init(surfacePersistent: Bool) { keeps = surfacePersistent }

    /// https://developer.apple.com/documentation/webkit/wkwebsitedatastore/default()
    open class func `default`() -> WKWebsiteDataStore { persistent }
    /// https://developer.apple.com/documentation/webkit/wkwebsitedatastore/nonpersistent()
    open class func nonPersistent() -> WKWebsiteDataStore { WKWebsiteDataStore(surfacePersistent: false) }
}

/// https://developer.apple.com/documentation/webkit/wkwebpagepreferences
@MainActor open class WKWebpagePreferences: NSObject {
    /// https://developer.apple.com/documentation/webkit/wkwebpagepreferences/contentmode
    public enum ContentMode: Int, @unchecked Sendable {
        case recommended = 0
        case mobile = 1
        case desktop = 2
    }

    /// https://developer.apple.com/documentation/webkit/wkwebpagepreferences/preferredcontentmode
    open var preferredContentMode: WKWebpagePreferences.ContentMode = .recommended
    public override init() { super.init() }
}

/// https://developer.apple.com/documentation/webkit/wkaudiovisualmediatypes
public struct WKAudiovisualMediaTypes: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let audio = WKAudiovisualMediaTypes(rawValue: 1 << 0)
    public static let video = WKAudiovisualMediaTypes(rawValue: 1 << 1)
    public static let all = WKAudiovisualMediaTypes(rawValue: .max)
}

/// https://developer.apple.com/documentation/webkit/wkwebviewconfiguration (`WK_SWIFT_UI_ACTOR`)
@MainActor open class WKWebViewConfiguration: NSObject {
    /// https://developer.apple.com/documentation/webkit/wkwebviewconfiguration/websitedatastore
    open var websiteDataStore: WKWebsiteDataStore = .default()
    /// https://developer.apple.com/documentation/webkit/wkwebviewconfiguration/applicationnameforuseragent
    open var applicationNameForUserAgent: String?
    /// https://developer.apple.com/documentation/webkit/wkwebviewconfiguration/defaultwebpagepreferences
    open var defaultWebpagePreferences: WKWebpagePreferences! = WKWebpagePreferences()
    /// https://developer.apple.com/documentation/webkit/wkwebviewconfiguration/mediatypesrequiringuseractionforplayback
    open var mediaTypesRequiringUserActionForPlayback: WKAudiovisualMediaTypes = .all
    #if canImport(UIKit)
    /// https://developer.apple.com/documentation/webkit/wkwebviewconfiguration/allowsinlinemediaplayback (iOS)
    open var allowsInlineMediaPlayback: Bool = false
    #endif
    public override init() { super.init() }
}

/// https://developer.apple.com/documentation/webkit/wknavigationdelegate (`WK_SWIFT_UI_ACTOR`; its methods are
/// optional in WebKit)
@MainActor public protocol WKNavigationDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/webkit/wknavigationdelegate/webview(_:decidepolicyfor:decisionhandler:)-2ni62
    /// The handler is `WK_SWIFT_UI_ACTOR`: current SDKs print `@MainActor @Sendable`, Xcode 16's interface
    /// `@MainActor`, which a Swift 6 client imports as the same type (SE-0434: a global-actor function type is
    /// `Sendable`). This module is compiled in Swift 5 mode, where it would not be, so `@Sendable` is spelled out.
    func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
                 decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void)
    /// https://developer.apple.com/documentation/webkit/wknavigationdelegate/webview(_:didstartprovisionalnavigation:)
    func webView(_ webView: WKWebView, didStartProvisionalNavigation navigation: WKNavigation!)
    /// https://developer.apple.com/documentation/webkit/wknavigationdelegate/webview(_:didfinish:)
    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!)
    /// https://developer.apple.com/documentation/webkit/wknavigationdelegate/webview(_:didfail:witherror:)
    func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: any Error)
    /// https://developer.apple.com/documentation/webkit/wknavigationdelegate/webview(_:didfailprovisionalnavigation:witherror:)
    func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error)
}

/// https://developer.apple.com/documentation/webkit/wkuidelegate (`WK_SWIFT_UI_ACTOR`; optional methods)
@MainActor public protocol WKUIDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/webkit/wkuidelegate/webview(_:createwebviewwith:for:windowfeatures:)
    func webView(_ webView: WKWebView, createWebViewWith configuration: WKWebViewConfiguration,
                 for navigationAction: WKNavigationAction, windowFeatures: WKWindowFeatures) -> WKWebView?
}

extension WKWebView {
    /// https://developer.apple.com/documentation/webkit/wkwebview/navigationdelegate (weak)
    public var navigationDelegate: (any WKNavigationDelegate)? {
        get { state.navigationDelegate }
        set { state.navigationDelegate = newValue }
    }
    /// https://developer.apple.com/documentation/webkit/wkwebview/uidelegate (weak)
    public var uiDelegate: (any WKUIDelegate)? {
        get { state.uiDelegate }
        set { state.uiDelegate = newValue }
    }
    /// https://developer.apple.com/documentation/webkit/wkwebview/configuration (a copy of the one given)
    public var configuration: WKWebViewConfiguration { state.configuration }
    /// https://developer.apple.com/documentation/webkit/wkwebview/url
    public var url: URL? { state.url }

    /// https://developer.apple.com/documentation/webkit/wkwebview/load(_:)-5siv6
    @discardableResult
    public func load(_ request: URLRequest) -> WKNavigation? {
        SurfaceWebViews.loaded.append(self)
        surfaceNavigate(request, target: WKFrameInfo(surfaceMainFrame: true), type: .other)
        return WKNavigation()
    }

    /// https://developer.apple.com/documentation/webkit/wkwebview/stoploading()
    public func stopLoading() {
        state.loading?.cancel()
        state.loading = nil
    }

    /// The user clicks a link to `url` (the stand-in's), in the page or to a new window (`target=_blank`): WebKit
    /// asks the navigation delegate, then for a new window the UI delegate.
    public func surfaceClickLink(to url: URL, newWindow: Bool = false) {
        surfaceNavigate(URLRequest(url: url), target: newWindow ? nil : WKFrameInfo(surfaceMainFrame: true),
                        type: .linkActivated)
    }

    /// The page calls `window.open(url)` (the stand-in's): WebKit asks the UI delegate for a web view.
    public func surfaceOpenWindow(_ url: URL) {
        let action = WKNavigationAction(surfaceRequest: URLRequest(url: url), target: nil, type: .other)
        _ = uiDelegate?.webView(self, createWebViewWith: configuration, for: action, windowFeatures: WKWindowFeatures())
    }

    private func surfaceNavigate(_ request: URLRequest, target: WKFrameInfo?, type: WKNavigationType) {
        let action = WKNavigationAction(surfaceRequest: request, target: target, type: type)
        guard let delegate = navigationDelegate else {
            surfaceFollow(action)
            return
        }
        delegate.webView(self, decidePolicyFor: action) { [weak self] policy in
            guard let self, policy == .allow else { return }
            self.surfaceFollow(action)
        }
    }

    private func surfaceFollow(_ action: WKNavigationAction) {
        guard action.targetFrame != nil else {
            if action.navigationType == .linkActivated {
                _ = uiDelegate?.webView(self, createWebViewWith: configuration, for: action, windowFeatures: WKWindowFeatures())
            }
            return
        }
        let navigation = WKNavigation()
        navigationDelegate?.webView(self, didStartProvisionalNavigation: navigation)
        let request = action.request
        state.loading?.cancel()
        state.loading = Task { @MainActor [weak self] in
            let page = await SurfaceWebViews.load(request)
            guard let self, !Task.isCancelled else { return }
            self.state.loading = nil
            switch page {
            case .page(let url):
                self.state.url = url
                self.navigationDelegate?.webView(self, didFinish: navigation)
            case .redirect(let location):
                self.surfaceNavigate(URLRequest(url: location), target: WKFrameInfo(surfaceMainFrame: true), type: .other)
            case .failure(let error):
                self.navigationDelegate?.webView(self, didFailProvisionalNavigation: navigation, withError: error)
            }
        }
    }
}

/// A web view's delegates and navigation (the stand-in's).
@MainActor final class SurfaceWebViewState {
    weak var navigationDelegate: (any WKNavigationDelegate)?
    weak var uiDelegate: (any WKUIDelegate)?
    let configuration: WKWebViewConfiguration
    var url: URL?
    var loading: Task<Void, Never>?

    init(configuration: WKWebViewConfiguration) { self.configuration = configuration }
}

/// The stand-in's network (not Apple API): what a web view's loads get.
@MainActor public enum SurfaceWebViews {
    /// What a load got.
    public enum Page {
        /// A page was shown (its address).
        case page(URL)
        /// The server redirected to this address.
        case redirect(URL)
        /// The load failed.
        case failure(any Error)
    }

    /// Answers each load; none: every load fails as if offline.
    public static var loader: (@MainActor (URLRequest) async -> Page)?
    /// Every web view that was asked to load, in order.
    public static var loaded: [WKWebView] = []

    /// Forgets the loader and the web views.
    public static func reset() { loader = nil; loaded = [] }

    static func load(_ request: URLRequest) async -> Page {
        guard let loader else { return .failure(URLError(.notConnectedToInternet)) }
        return await loader(request)
    }
}
