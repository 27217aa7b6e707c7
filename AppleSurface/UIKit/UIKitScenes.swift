// UIKit's windows, scenes and application, as far as the authentication session's presentation anchor and the
// seeds' app and scene delegates use them. `SurfaceScreen` arranges them in tests (not Apple API).

public import Foundation

/// https://developer.apple.com/documentation/uikit/uiwindow
@MainActor open class UIWindow: UIView {
    private weak var scene: UIWindowScene?
    fileprivate var key = false

    /// https://developer.apple.com/documentation/uikit/uiwindow/init(windowscene:)
    public init(windowScene: UIWindowScene) {
        scene = windowScene
        super.init(frame: .zero)
        windowScene.attach(self)
    }
    public override init(frame: CGRect) { super.init(frame: frame) }
    public required init?(coder: NSCoder) { super.init(coder: coder) }
    #if SURFACE_SDK_26
    /// https://developer.apple.com/documentation/uikit/uiwindow/init() (deprecated in iOS 26.0; the surface marks every
    /// deprecated declaration so, so that a use fails the warnings-as-errors build whatever the deployment target).
    @available(*, deprecated, message: "Use init(windowScene:) instead. This will become unavailable in a future release.")
    public convenience init() { self.init(frame: .zero) }
    #endif

    open override var window: UIWindow? { self }
    /// https://developer.apple.com/documentation/uikit/uiwindow/windowscene (`weak var windowScene`, settable)
    open var windowScene: UIWindowScene? {
        get { scene }
        set {
            scene?.detach(self)
            scene = newValue
            newValue?.attach(self)
        }
    }
    /// https://developer.apple.com/documentation/uikit/uiwindow/iskeywindow
    open var isKeyWindow: Bool { key }
    /// https://developer.apple.com/documentation/uikit/uiwindow/rootviewcontroller
    open var rootViewController: UIViewController? {
        didSet {
            oldValue?.viewIfLoaded?.removeFromSuperview()
            if let view = rootViewController?.view { addSubview(view) }
        }
    }
    /// https://developer.apple.com/documentation/uikit/uiwindow/makekeyandvisible()
    open func makeKeyAndVisible() {
        for window in scene?.windows ?? [] { window.key = false }
        key = true
    }
}

/// https://developer.apple.com/documentation/uikit/uiscene
@MainActor open class UIScene: UIResponder {
    /// https://developer.apple.com/documentation/uikit/uiscene/activationstate-swift.enum
    public enum ActivationState: Int, @unchecked Sendable {
        case unattached = -1
        case foregroundActive = 0
        case foregroundInactive = 1
        case background = 2
    }

    /// https://developer.apple.com/documentation/uikit/uiscene/openurloptions
    @MainActor open class OpenURLOptions: NSObject {
        /// https://developer.apple.com/documentation/uikit/uiscene/openurloptions/sourceapplication
        open var sourceApplication: String? { source }
        private let source: String?
        /// Options naming `sourceApplication` (the stand-in's; UIKit makes these).
        public init(surfaceSourceApplication: String?) { source = surfaceSourceApplication }
    }

    private var state: ActivationState

    /// A scene in `activationState` (the stand-in's; UIKit makes scenes from a session).
    public init(surfaceActivationState: ActivationState) {
        state = surfaceActivationState
        super.init()
    }

    /// https://developer.apple.com/documentation/uikit/uiscene/activationstate-swift.property
    open var activationState: UIScene.ActivationState { state }
}

/// https://developer.apple.com/documentation/uikit/uiwindowscene
@MainActor open class UIWindowScene: UIScene {
    private var attached: [UIWindow] = []

    fileprivate func attach(_ window: UIWindow) { attached.append(window) }
    fileprivate func detach(_ window: UIWindow) { attached.removeAll { $0 === window } }

    /// https://developer.apple.com/documentation/uikit/uiwindowscene/windows
    open var windows: [UIWindow] { attached }
    /// https://developer.apple.com/documentation/uikit/uiwindowscene/keywindow
    open var keyWindow: UIWindow? { attached.first { $0.isKeyWindow } }
}

/// https://developer.apple.com/documentation/uikit/uiopenurlcontext
@MainActor open class UIOpenURLContext: NSObject {
    /// https://developer.apple.com/documentation/uikit/uiopenurlcontext/url
    open var url: URL { address }
    /// https://developer.apple.com/documentation/uikit/uiopenurlcontext/options
    open var options: UIScene.OpenURLOptions { openOptions }
    private let address: URL
    private let openOptions: UIScene.OpenURLOptions
    /// A context for `url` (the stand-in's; UIKit makes these).
    public init(surfaceURL url: URL, options: UIScene.OpenURLOptions) {
        address = url
        openOptions = options
    }
}

/// https://developer.apple.com/documentation/uikit/uiapplication
@MainActor open class UIApplication: UIResponder {
    #if SURFACE_APP_EXTENSION
    /// https://developer.apple.com/documentation/uikit/uiapplication/shared: `NS_EXTENSION_UNAVAILABLE_IOS`
    /// (`UIApplication.h`), so unavailable when code is built for an app extension (`-application-extension`). Linux
    /// has no `iOSApplicationExtension` platform: the app-extension surface marks it unavailable outright.
    @available(*, unavailable, message: "Use view controller based solutions where appropriate instead.")
    open class var shared: UIApplication { SurfaceScreen.application }
    #else
    /// https://developer.apple.com/documentation/uikit/uiapplication/shared
    @available(iOSApplicationExtension, unavailable, message: "Use view controller based solutions where appropriate instead.")
    open class var shared: UIApplication { SurfaceScreen.application }
    #endif

    /// https://developer.apple.com/documentation/uikit/uiapplication/connectedscenes
    open var connectedScenes: Set<UIScene> { Set(SurfaceScreen.scenes) }

    /// https://developer.apple.com/documentation/uikit/uiapplication/willenterforegroundnotification (`nonisolated
    /// class let`)
    nonisolated public static let willEnterForegroundNotification = NSNotification.Name("UIApplicationWillEnterForegroundNotification")

    /// https://developer.apple.com/documentation/uikit/uiapplication/openurloptionskey (`NS_TYPED_ENUM`: only
    /// `init(rawValue:)`; deprecated in iOS 26.0 with the app delegate's URL method)
    #if SURFACE_SDK_26
    @available(*, deprecated, message: "Use UIScene lifecycle and UIOpenURLContext instead.")
    #endif
    public struct OpenURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/uikit/uiapplication/openurloptionskey/sourceapplication
        public static let sourceApplication = OpenURLOptionsKey(rawValue: "UIApplicationOpenURLOptionsSourceApplicationKey")
    }
}

/// https://developer.apple.com/documentation/uikit/uiapplicationdelegate (the stand-in's requirements have
/// defaults, as the protocol's optional methods do: Swift on Linux has no `@objc optional`).
@MainActor public protocol UIApplicationDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/uikit/uiapplicationdelegate/application(_:open:options:)
    /// (deprecated in iOS 26.0)
    #if SURFACE_SDK_26
    @available(*, deprecated, message: "Use UIScene lifecycle and scene(_:openURLContexts:) instead.")
    #endif
    func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any]) -> Bool
}

extension UIApplicationDelegate {
    #if SURFACE_SDK_26
    @available(*, deprecated, message: "Use UIScene lifecycle and scene(_:openURLContexts:) instead.")
    #endif
    public func application(_ app: UIApplication, open url: URL,
                            options: [UIApplication.OpenURLOptionsKey: Any]) -> Bool { false }
}

/// https://developer.apple.com/documentation/uikit/uiscenedelegate
@MainActor public protocol UISceneDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/uikit/uiscenedelegate/scene(_:openurlcontexts:)
    func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>)
}

extension UISceneDelegate {
    public func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {}
}

/// https://developer.apple.com/documentation/uikit/uiwindowscenedelegate
@MainActor public protocol UIWindowSceneDelegate: UISceneDelegate {}

/// The stand-in's screen (not Apple API): the application and the scenes connected to it, arranged by tests.
@MainActor public enum SurfaceScreen {
    static let application = UIApplication()
    static var scenes: [UIScene] = []
    /// Every URL the application was asked to open in another app, in order.
    public internal(set) static var openedURLs: [URL] = []
    /// For each of ``openedURLs``, whether it was opened with `universalLinksOnly`.
    public internal(set) static var openedUniversalLinksOnly: [Bool] = []
    /// The URL schemes an installed app handles (what `canOpenURL(_:)` answers true for), arranged by tests.
    public static var openableSchemes: Set<String> = []
    /// Whether the process runs as an app extension (no shared application), as the app-extension surface is built.
    #if SURFACE_APP_EXTENSION
    nonisolated static let isAppExtension = true
    #else
    nonisolated static let isAppExtension = false
    #endif

    /// Connects `scenes` (replacing those connected before), in this order.
    public static func connect(_ connected: [UIScene]) { scenes = connected }
    /// Forgets the URLs opened so far.
    public static func resetOpenedURLs() {
        openedURLs = []
        openedUniversalLinksOnly = []
    }
}
