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

    open override var window: UIWindow? { self }
    /// https://developer.apple.com/documentation/uikit/uiwindow/windowscene
    open var windowScene: UIWindowScene? { scene }
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
    /// https://developer.apple.com/documentation/uikit/uiapplication/shared
    open class var shared: UIApplication { SurfaceScreen.application }

    /// https://developer.apple.com/documentation/uikit/uiapplication/connectedscenes
    open var connectedScenes: Set<UIScene> { Set(SurfaceScreen.scenes) }

    /// https://developer.apple.com/documentation/uikit/uiapplication/willenterforegroundnotification
    public static let willEnterForegroundNotification = NSNotification.Name("UIApplicationWillEnterForegroundNotification")

    /// https://developer.apple.com/documentation/uikit/uiapplication/openurloptionskey
    public struct OpenURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/uikit/uiapplication/openurloptionskey/sourceapplication
        public static let sourceApplication = OpenURLOptionsKey(rawValue: "UIApplicationOpenURLOptionsSourceApplicationKey")
    }
}

/// https://developer.apple.com/documentation/uikit/uiapplicationdelegate (the stand-in's requirements have
/// defaults, as the protocol's optional methods do).
@MainActor public protocol UIApplicationDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/uikit/uiapplicationdelegate/application(_:open:options:)
    func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any]) -> Bool
}

extension UIApplicationDelegate {
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

    /// Connects `scenes` (replacing those connected before), in this order.
    public static func connect(_ connected: [UIScene]) { scenes = connected }
}
