// UIKit, as far as MSAL for Swift and the seeds' iOS tutorial use it: responders, views, controls, view
// controllers and layout anchors. Views keep their superview, so `view.window` is the window a controller's view
// was put in (`UIWindow.rootViewController`).

@_exported public import Foundation
@_exported public import ObjectiveC
// Apple's Foundation includes URLSession; Linux's keeps it in FoundationNetworking.
#if canImport(FoundationNetworking)
@_exported public import FoundationNetworking
#endif

/// https://developer.apple.com/documentation/uikit/uiresponder
@MainActor open class UIResponder: NSObject {
    public override init() { super.init() }
}

/// https://developer.apple.com/documentation/uikit/uiview
@MainActor open class UIView: UIResponder {
    private weak var parent: UIView?
    private var children: [UIView] = []

    /// https://developer.apple.com/documentation/uikit/uiview/init(frame:)
    public init(frame: CGRect) { super.init() }
    /// https://developer.apple.com/documentation/uikit/uiview/init(coder:)
    public required init?(coder: NSCoder) { super.init() }
    public convenience override init() { self.init(frame: .zero) }

    /// https://developer.apple.com/documentation/uikit/uiview/window
    open var window: UIWindow? { parent?.window }
    /// https://developer.apple.com/documentation/uikit/uiview/superview
    open var superview: UIView? { parent }
    /// https://developer.apple.com/documentation/uikit/uiview/subviews
    open var subviews: [UIView] { children }
    /// https://developer.apple.com/documentation/uikit/uiview/addsubview(_:)
    open func addSubview(_ view: UIView) {
        view.removeFromSuperview()
        view.parent = self
        children.append(view)
    }
    /// https://developer.apple.com/documentation/uikit/uiview/removefromsuperview()
    open func removeFromSuperview() {
        parent?.children.removeAll { $0 === self }
        parent = nil
    }
    /// https://developer.apple.com/documentation/uikit/uiview/translatesautoresizingmaskintoconstraints
    open var translatesAutoresizingMaskIntoConstraints: Bool = true
    /// https://developer.apple.com/documentation/uikit/uiview/isuserinteractionenabled
    open var isUserInteractionEnabled: Bool = true

    /// https://developer.apple.com/documentation/uikit/uiview/topanchor
    open var topAnchor: NSLayoutYAxisAnchor { NSLayoutYAxisAnchor() }
    /// https://developer.apple.com/documentation/uikit/uiview/bottomanchor
    open var bottomAnchor: NSLayoutYAxisAnchor { NSLayoutYAxisAnchor() }
    /// https://developer.apple.com/documentation/uikit/uiview/leftanchor
    open var leftAnchor: NSLayoutXAxisAnchor { NSLayoutXAxisAnchor() }
    /// https://developer.apple.com/documentation/uikit/uiview/rightanchor
    open var rightAnchor: NSLayoutXAxisAnchor { NSLayoutXAxisAnchor() }
    /// https://developer.apple.com/documentation/uikit/uiview/centerxanchor
    open var centerXAnchor: NSLayoutXAxisAnchor { NSLayoutXAxisAnchor() }
    /// https://developer.apple.com/documentation/uikit/uiview/widthanchor
    open var widthAnchor: NSLayoutDimension { NSLayoutDimension() }
    /// https://developer.apple.com/documentation/uikit/uiview/heightanchor
    open var heightAnchor: NSLayoutDimension { NSLayoutDimension() }
}

/// https://developer.apple.com/documentation/uikit/nslayoutanchor
@MainActor open class NSLayoutAnchor<AnchorType: AnyObject>: NSObject {
    public override init() { super.init() }
    /// https://developer.apple.com/documentation/uikit/nslayoutanchor/constraint(equalto:)
    open func constraint(equalTo anchor: NSLayoutAnchor<AnchorType>) -> NSLayoutConstraint { NSLayoutConstraint() }
    /// https://developer.apple.com/documentation/uikit/nslayoutanchor/constraint(equalto:constant:)
    open func constraint(equalTo anchor: NSLayoutAnchor<AnchorType>, constant c: CGFloat) -> NSLayoutConstraint {
        NSLayoutConstraint()
    }
}

/// https://developer.apple.com/documentation/uikit/nslayoutxaxisanchor
@MainActor open class NSLayoutXAxisAnchor: NSLayoutAnchor<NSLayoutXAxisAnchor> {}

/// https://developer.apple.com/documentation/uikit/nslayoutyaxisanchor
@MainActor open class NSLayoutYAxisAnchor: NSLayoutAnchor<NSLayoutYAxisAnchor> {}

/// https://developer.apple.com/documentation/uikit/nslayoutdimension
@MainActor open class NSLayoutDimension: NSLayoutAnchor<NSLayoutDimension> {
    /// https://developer.apple.com/documentation/uikit/nslayoutdimension/constraint(equaltoconstant:)
    open func constraint(equalToConstant c: CGFloat) -> NSLayoutConstraint { NSLayoutConstraint() }
}

/// https://developer.apple.com/documentation/uikit/nslayoutconstraint
@MainActor open class NSLayoutConstraint: NSObject {
    public override init() { super.init() }
    /// https://developer.apple.com/documentation/uikit/nslayoutconstraint/isactive
    open var isActive: Bool = false
}

/// https://developer.apple.com/documentation/uikit/nstextalignment
public enum NSTextAlignment: Int, @unchecked Sendable {
    case left = 0
    case center = 1
    case right = 2
    case justified = 3
    case natural = 4
}

/// https://developer.apple.com/documentation/uikit/uicolor
open class UIColor: NSObject, @unchecked Sendable {
    public override init() { super.init() }
    /// https://developer.apple.com/documentation/uikit/uicolor/darkgray
    open class var darkGray: UIColor { UIColor() }
    /// https://developer.apple.com/documentation/uikit/uicolor/gray
    open class var gray: UIColor { UIColor() }
    /// https://developer.apple.com/documentation/uikit/uicolor/blue
    open class var blue: UIColor { UIColor() }
}

/// https://developer.apple.com/documentation/uikit/uicontrol
@MainActor open class UIControl: UIView {
    /// https://developer.apple.com/documentation/uikit/uicontrol/event
    public struct Event: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/uikit/uicontrol/event/touchupinside
        public static var touchUpInside: UIControl.Event { Event(rawValue: 1 << 6) }
    }

    /// https://developer.apple.com/documentation/uikit/uicontrol/state
    public struct State: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/uikit/uicontrol/state/normal
        public static var normal: UIControl.State { State(rawValue: 0) }
        /// https://developer.apple.com/documentation/uikit/uicontrol/state/disabled
        public static var disabled: UIControl.State { State(rawValue: 1 << 1) }
    }

    /// https://developer.apple.com/documentation/uikit/uicontrol/isenabled
    open var isEnabled: Bool = true
    /// https://developer.apple.com/documentation/uikit/uicontrol/addtarget(_:action:for:)
    open func addTarget(_ target: Any?, action: Selector, for controlEvents: UIControl.Event) {}
}

/// https://developer.apple.com/documentation/uikit/uibutton
@MainActor open class UIButton: UIControl {
    /// https://developer.apple.com/documentation/uikit/uibutton/settitle(_:for:)
    open func setTitle(_ title: String?, for state: UIControl.State) {}
    /// https://developer.apple.com/documentation/uikit/uibutton/settitlecolor(_:for:)
    open func setTitleColor(_ color: UIColor?, for state: UIControl.State) {}
}

/// https://developer.apple.com/documentation/uikit/uilabel
@MainActor open class UILabel: UIView {
    /// https://developer.apple.com/documentation/uikit/uilabel/text
    open var text: String?
    /// https://developer.apple.com/documentation/uikit/uilabel/textcolor
    open var textColor: UIColor!
    /// https://developer.apple.com/documentation/uikit/uilabel/textalignment
    open var textAlignment: NSTextAlignment = .natural
}

/// https://developer.apple.com/documentation/uikit/uitextfield
@MainActor open class UITextField: UIControl {
    /// https://developer.apple.com/documentation/uikit/uitextfield/text
    open var text: String?
}

/// https://developer.apple.com/documentation/uikit/uiscrollview
@MainActor open class UIScrollView: UIView {}

/// https://developer.apple.com/documentation/uikit/uitextview
@MainActor open class UITextView: UIScrollView {
    /// https://developer.apple.com/documentation/uikit/uitextview/text
    open var text: String! = ""
}

/// https://developer.apple.com/documentation/uikit/uiviewcontroller
@MainActor open class UIViewController: UIResponder {
    private var loadedView: UIView?
    /// Presentation state (UIKitPresentation.swift).
    var presented: UIViewController?
    weak var presenting: UIViewController?
    var modalStyle: UIModalPresentationStyle = .automatic
    var modalInPresentation = false
    lazy var item = UINavigationItem()

    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/init(nibname:bundle:)
    public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) { super.init() }
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/init(coder:)
    public required init?(coder: NSCoder) { super.init() }
    public convenience override init() { self.init(nibName: nil, bundle: nil) }

    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/view (loaded on first access)
    open var view: UIView! {
        get {
            if loadedView == nil { loadView(); viewDidLoad() }
            return loadedView
        }
        set { loadedView = newValue }
    }
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/viewifloaded
    open var viewIfLoaded: UIView? { loadedView }
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/loadview()
    open func loadView() { loadedView = UIView() }
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/viewdidload()
    open func viewDidLoad() {}
    /// https://developer.apple.com/documentation/uikit/uiviewcontroller/viewwillappear(_:)
    open func viewWillAppear(_ animated: Bool) {}
}

#if canImport(FoundationNetworking)
extension URLSession {
    /// https://developer.apple.com/documentation/foundation/urlsession/datatask(with:completionhandler:)-52wk8
    /// Apple's SDK imports it from Objective-C, so Swift 5 code doing main-actor work in the handler gets warnings,
    /// not errors (`@preconcurrency`); Foundation on Linux declares it in Swift. This restores Apple's form.
    @preconcurrency
    public func dataTask(with request: URLRequest,
                         completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> URLSessionDataTask {
        surfaceFoundationDataTask(self, request, completionHandler)
    }
}
#endif
