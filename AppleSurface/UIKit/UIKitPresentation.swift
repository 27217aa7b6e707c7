// UIKit's modal presentation, navigation controller and bar button items, as far as MSAL for Swift's embedded sign-in
// view uses them; and opening a URL in another app. Declarations from Apple's documentation (`UIViewController.h`,
// `UINavigationController.h`, `UIBarButtonItem.h`, `UIAction.h`, `UIApplication.h`). Presenting is immediate and
// records what is shown; `SurfaceScreen.openedURLs` records what was opened (the stand-in's).

public import Foundation

/// https://developer.apple.com/documentation/uikit/uimodalpresentationstyle
public enum UIModalPresentationStyle: Int, @unchecked Sendable {
    case automatic = -2
    case none = -1
    case fullScreen = 0
    case pageSheet = 1
    case formSheet = 2
    case currentContext = 3
    case custom = 4
    case overFullScreen = 5
    case overCurrentContext = 6
    case popover = 7
}

extension UIViewController {
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/present(_:animated:completion:)
    public func present(_ viewControllerToPresent: UIViewController, animated flag: Bool,
                        completion: (() -> Void)? = nil) {
        presented = viewControllerToPresent
        viewControllerToPresent.presenting = self
        completion?()
    }

    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/dismiss(animated:completion:)
    /// (called on the presenting controller or the presented one)
    public func dismiss(animated flag: Bool, completion: (() -> Void)? = nil) {
        let owner = presented != nil ? self : presenting
        owner?.presented?.presenting = nil
        owner?.presented = nil
        completion?()
    }

    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/presentedviewcontroller
    public var presentedViewController: UIViewController? { presented }
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/presentingviewcontroller
    public var presentingViewController: UIViewController? { presenting }
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/modalpresentationstyle
    public var modalPresentationStyle: UIModalPresentationStyle {
        get { modalStyle }
        set { modalStyle = newValue }
    }
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/ismodalinpresentation
    public var isModalInPresentation: Bool {
        get { modalInPresentation }
        set { modalInPresentation = newValue }
    }
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/navigationitem
    public var navigationItem: UINavigationItem { item }
}

/// https://developer.apple.com/documentation/uikit/uinavigationcontroller
@MainActor open class UINavigationController: UIViewController {
    /// https://developer.apple.com/documentation/uikit/uinavigationcontroller/viewcontrollers
    open var viewControllers: [UIViewController] = []

    /// https://developer.apple.com/documentation/uikit/uinavigationcontroller/init(rootviewcontroller:)
    public init(rootViewController: UIViewController) {
        super.init(nibName: nil, bundle: nil)
        viewControllers = [rootViewController]
    }
    public required init?(coder: NSCoder) { super.init(coder: coder) }
}

/// https://developer.apple.com/documentation/uikit/uinavigationitem
@MainActor open class UINavigationItem: NSObject {
    /// https://developer.apple.com/documentation/uikit/uinavigationitem/leftbarbuttonitem
    open var leftBarButtonItem: UIBarButtonItem?
    /// https://developer.apple.com/documentation/uikit/uinavigationitem/title
    open var title: String?
}

/// https://developer.apple.com/documentation/uikit/uiactionhandler
public typealias UIActionHandler = @MainActor (UIAction) -> Void

/// https://developer.apple.com/documentation/uikit/uiaction
@MainActor open class UIAction: NSObject {
    /// The handler (the stand-in's: UIKit calls it when the control is used).
    public let surfaceHandler: UIActionHandler
    /// https://developer.apple.com/documentation/uikit/uiaction/title
    open var title: String

    /// https://developer.apple.com/documentation/uikit/uiaction/init(title:image:identifier:discoverabilitytitle:attributes:state:handler:)
    /// (the title and handler of that initializer; the others take their defaults)
    public init(title: String = "", handler: @escaping UIActionHandler) {
        self.title = title
        surfaceHandler = handler
    }
}

/// https://developer.apple.com/documentation/uikit/uibarbuttonitem
@MainActor open class UIBarButtonItem: NSObject {
    /// https://developer.apple.com/documentation/uikit/uibarbuttonitem/systemitem
    public enum SystemItem: Int, @unchecked Sendable {
        case done = 0
        case cancel = 1
        case edit = 2
        case save = 3
    }

    /// The system item (the stand-in's).
    public let surfaceSystemItem: SystemItem
    /// https://developer.apple.com/documentation/uikit/uibarbuttonitem/primaryaction
    open var primaryAction: UIAction?

    /// https://developer.apple.com/documentation/uikit/uibarbuttonitem/init(systemitem:primaryaction:menu:)
    /// (without the menu, which defaults to nil)
    public init(systemItem: UIBarButtonItem.SystemItem, primaryAction: UIAction? = nil) {
        surfaceSystemItem = systemItem
        self.primaryAction = primaryAction
    }

    /// The user taps the item (the stand-in's).
    public func surfaceTap() {
        guard let primaryAction else { return }
        primaryAction.surfaceHandler(primaryAction)
    }
}

extension UIApplication {
    /// https://developer.apple.com/documentation/uikit/uiapplication/openexternalurloptionskey
    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/uikit/uiapplication/openexternalurloptionskey/universallinksonly
        public static let universalLinksOnly = OpenExternalURLOptionsKey(rawValue: "UIApplicationOpenURLOptionUniversalLinksOnly")
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/canopenurl(_:) (the stand-in answers true for
    /// the schemes of ``SurfaceScreen/openableSchemes``: the apps "installed").
    public func canOpenURL(_ url: URL) -> Bool {
        SurfaceScreen.openableSchemes.contains(url.scheme?.lowercased() ?? "")
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/open(_:options:completionhandler:)
    public func open(_ url: URL, options: [UIApplication.OpenExternalURLOptionsKey: Any] = [:],
                     completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil) {
        SurfaceScreen.openedURLs.append(url)
        SurfaceScreen.openedUniversalLinksOnly.append(options[.universalLinksOnly] as? Bool ?? false)
        completion?(true)
    }
}

extension NSObject {
    /// https://developer.apple.com/documentation/objectivec/nsobject-swift.class/value(forkey:) as sent to a class
    /// object (Swift reflects the root class's instance methods on the metatype). Declared here because Foundation on
    /// Linux has no key-value coding; the stand-in answers `UIApplication`'s `sharedApplication` only, and nothing in
    /// an app extension, which has no shared application.
    public class func value(forKey key: String) -> Any? {
        guard self == UIApplication.self, key == "sharedApplication", !SurfaceScreen.isAppExtension else { return nil }
        return MainActor.assumeIsolated { SurfaceScreen.application }
    }
}
