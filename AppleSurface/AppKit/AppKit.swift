// AppKit, as far as MSAL for Swift uses it: the view controller an app presents sign-in from, its view's window,
// and the application's key and main windows. `SurfaceScreen` arranges them in tests (not Apple API).

@_exported public import Foundation
@_exported public import ObjectiveC

/// https://developer.apple.com/documentation/appkit/nsresponder
@MainActor open class NSResponder: NSObject {
    public override init() { super.init() }
}

/// https://developer.apple.com/documentation/appkit/nsview
@MainActor open class NSView: NSResponder {
    fileprivate weak var hostWindow: NSWindow?

    /// https://developer.apple.com/documentation/appkit/nsview/init(frame:)
    public init(frame frameRect: NSRect) { super.init() }
    public convenience override init() { self.init(frame: .zero) }

    /// https://developer.apple.com/documentation/appkit/nsview/window
    open var window: NSWindow? { hostWindow }
}

/// https://developer.apple.com/documentation/appkit/nswindow
@MainActor open class NSWindow: NSResponder {
    fileprivate var key = false
    fileprivate var main = false

    public override init() { super.init() }

    /// https://developer.apple.com/documentation/appkit/nswindow/iskeywindow
    open var isKeyWindow: Bool { key }
    /// https://developer.apple.com/documentation/appkit/nswindow/ismainwindow
    open var isMainWindow: Bool { main }
    /// https://developer.apple.com/documentation/appkit/nswindow/contentviewcontroller
    open var contentViewController: NSViewController? {
        didSet { contentViewController?.view.hostWindow = self }
    }
    /// https://developer.apple.com/documentation/appkit/nswindow/makekeyandorderfront(_:)
    open func makeKeyAndOrderFront(_ sender: Any?) {
        for window in SurfaceScreen.windows { window.key = false; window.main = false }
        key = true
        main = true
        if !SurfaceScreen.windows.contains(where: { $0 === self }) { SurfaceScreen.windows.append(self) }
    }
}

/// https://developer.apple.com/documentation/appkit/nsviewcontroller
@MainActor open class NSViewController: NSResponder {
    private var loadedView: NSView?

    /// https://developer.apple.com/documentation/appkit/nsviewcontroller/init(nibname:bundle:)
    public init(nibName nibNameOrNil: NSNib.Name?, bundle nibBundleOrNil: Bundle?) { super.init() }
    public convenience override init() { self.init(nibName: nil, bundle: nil) }

    /// https://developer.apple.com/documentation/appkit/nsviewcontroller/view
    open var view: NSView {
        get {
            if loadedView == nil { loadView(); viewDidLoad() }
            return loadedView ?? NSView()
        }
        set { loadedView = newValue }
    }
    /// https://developer.apple.com/documentation/appkit/nsviewcontroller/viewifloaded
    open var viewIfLoaded: NSView? { loadedView }
    /// https://developer.apple.com/documentation/appkit/nsviewcontroller/loadview()
    open func loadView() { loadedView = NSView() }
    /// https://developer.apple.com/documentation/appkit/nsviewcontroller/viewdidload()
    open func viewDidLoad() {}
}

/// https://developer.apple.com/documentation/appkit/nsnib
@MainActor open class NSNib: NSObject {
    /// https://developer.apple.com/documentation/appkit/nsnib/name
    public typealias Name = String
}

/// https://developer.apple.com/documentation/appkit/nsapplication
@MainActor open class NSApplication: NSResponder {
    /// https://developer.apple.com/documentation/appkit/nsapplication/shared
    open class var shared: NSApplication { SurfaceScreen.application }
    /// https://developer.apple.com/documentation/appkit/nsapplication/keywindow
    open var keyWindow: NSWindow? { SurfaceScreen.windows.first { $0.isKeyWindow } }
    /// https://developer.apple.com/documentation/appkit/nsapplication/mainwindow
    open var mainWindow: NSWindow? { SurfaceScreen.windows.first { $0.isMainWindow } }
    /// https://developer.apple.com/documentation/appkit/nsapplication/windows
    open var windows: [NSWindow] { SurfaceScreen.windows }
}

/// The stand-in's screen (not Apple API): the application and its windows, arranged by tests.
@MainActor public enum SurfaceScreen {
    static let application = NSApplication()
    static var windows: [NSWindow] = []

    /// Closes every window.
    public static func reset() { windows = [] }
}
