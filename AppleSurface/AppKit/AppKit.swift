// AppKit, as far as MSAL for Swift uses it: the view controller an app presents sign-in from, its view's window,
// and the application's key and main windows. `SurfaceScreen` arranges them in tests (not Apple API).

@_exported public import Foundation
@_exported public import ObjectiveC

/// https://developer.apple.com/documentation/appkit/nsresponder
@MainActor open class NSResponder: NSObject {
    public override init() { super.init() }
    /// https://developer.apple.com/documentation/appkit/nsresponder/init(coder:) (`NS_DESIGNATED_INITIALIZER`, NSCoding)
    public required init?(coder: NSCoder) { super.init() }
}

/// https://developer.apple.com/documentation/appkit/nsview
@MainActor open class NSView: NSResponder {
    fileprivate weak var hostWindow: NSWindow?
    private weak var parent: NSView?
    private var children: [NSView] = []

    /// https://developer.apple.com/documentation/appkit/nsview/init(frame:)
    public init(frame frameRect: NSRect) { super.init() }
    /// https://developer.apple.com/documentation/appkit/nsview/init(coder:)
    public required init?(coder: NSCoder) { super.init(coder: coder) }
    public convenience override init() { self.init(frame: .zero) }

    /// https://developer.apple.com/documentation/appkit/nsview/window
    open var window: NSWindow? { hostWindow ?? parent?.window }
    /// https://developer.apple.com/documentation/appkit/nsview/superview
    open var superview: NSView? { parent }
    /// https://developer.apple.com/documentation/appkit/nsview/subviews
    open var subviews: [NSView] { children }
    /// https://developer.apple.com/documentation/appkit/nsview/addsubview(_:)
    open func addSubview(_ view: NSView) {
        view.parent?.children.removeAll { $0 === view }
        view.parent = self
        children.append(view)
    }
    /// https://developer.apple.com/documentation/appkit/nsview/autoresizingmask
    open var autoresizingMask: NSView.AutoresizingMask = []

    /// https://developer.apple.com/documentation/appkit/nsview/autoresizingmask-swift.struct
    public struct AutoresizingMask: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let width = AutoresizingMask(rawValue: 1 << 1)
        public static let height = AutoresizingMask(rawValue: 1 << 4)
    }
}

/// https://developer.apple.com/documentation/appkit/nswindow
@MainActor open class NSWindow: NSResponder {
    fileprivate var key = false
    fileprivate var main = false

    public override init() { super.init() }
    /// https://developer.apple.com/documentation/appkit/nswindow/init(contentrect:stylemask:backing:defer:)
    public init(contentRect: NSRect, styleMask style: NSWindow.StyleMask, backing backingStoreType: NSWindow.BackingStoreType,
                defer flag: Bool) {
        surfaceStyleMask = style
        super.init()
    }
    /// https://developer.apple.com/documentation/appkit/nswindow/init(coder:)
    public required init?(coder: NSCoder) { super.init(coder: coder) }

    /// https://developer.apple.com/documentation/appkit/nswindow/stylemask-swift.struct
    public struct StyleMask: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let titled = StyleMask(rawValue: 1 << 0)
        public static let closable = StyleMask(rawValue: 1 << 1)
        public static let miniaturizable = StyleMask(rawValue: 1 << 2)
        public static let resizable = StyleMask(rawValue: 1 << 3)
    }

    /// https://developer.apple.com/documentation/appkit/nswindow/backingstoretype-swift.enum
    public enum BackingStoreType: UInt, @unchecked Sendable {
        case retained = 0
        case nonretained = 1
        case buffered = 2
    }

    /// The style the window was made with (the stand-in's).
    public private(set) var surfaceStyleMask: StyleMask = [.titled, .closable]
    /// https://developer.apple.com/documentation/appkit/nswindow/title
    open var title: String = ""
    /// https://developer.apple.com/documentation/appkit/nswindow/isreleasedwhenclosed
    open var isReleasedWhenClosed: Bool = true
    /// https://developer.apple.com/documentation/appkit/nswindow/delegate
    open weak var delegate: (any NSWindowDelegate)?
    /// https://developer.apple.com/documentation/appkit/nswindow/contentview
    open var contentView: NSView? {
        didSet { contentView?.hostWindow = self }
    }
    /// https://developer.apple.com/documentation/appkit/nswindow/center()
    open func center() {}
    /// https://developer.apple.com/documentation/appkit/nswindow/close() (tells the delegate, then leaves the screen)
    open func close() {
        delegate?.windowWillClose(Notification(name: NSWindow.willCloseNotification, object: self))
        SurfaceScreen.windows.removeAll { $0 === self }
    }
    /// https://developer.apple.com/documentation/appkit/nswindow/willclosenotification
    nonisolated public static let willCloseNotification = NSNotification.Name("NSWindowWillCloseNotification")

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

/// https://developer.apple.com/documentation/appkit/nswindowdelegate (`NS_SWIFT_UI_ACTOR`; optional methods, plain
/// requirements here as Swift on Linux has no optional requirements)
@MainActor public protocol NSWindowDelegate: NSObjectProtocol {
    /// https://developer.apple.com/documentation/appkit/nswindowdelegate/windowwillclose(_:)
    func windowWillClose(_ notification: Notification)
}

/// https://developer.apple.com/documentation/appkit/nsworkspace (not main-thread-only)
open class NSWorkspace: NSObject, @unchecked Sendable {
    private static let instance = NSWorkspace()
    /// https://developer.apple.com/documentation/appkit/nsworkspace/shared
    open class var shared: NSWorkspace { instance }
    private let lock = NSLock()
    private var opened: [URL] = []

    /// https://developer.apple.com/documentation/appkit/nsworkspace/open(_:)
    @discardableResult
    open func open(_ url: URL) -> Bool {
        lock.lock(); defer { lock.unlock() }
        opened.append(url)
        return true
    }

    /// Every URL opened so far (the stand-in's).
    public var surfaceOpenedURLs: [URL] { lock.lock(); defer { lock.unlock() }; return opened }
    /// Forgets the URLs opened so far (the stand-in's).
    public func surfaceReset() { lock.lock(); opened = []; lock.unlock() }
}

/// https://developer.apple.com/documentation/appkit/nsviewcontroller
@MainActor open class NSViewController: NSResponder {
    private var loadedView: NSView?

    /// https://developer.apple.com/documentation/appkit/nsviewcontroller/init(nibname:bundle:)
    public init(nibName nibNameOrNil: NSNib.Name?, bundle nibBundleOrNil: Bundle?) { super.init() }
    /// https://developer.apple.com/documentation/appkit/nsviewcontroller/init(coder:)
    public required init?(coder: NSCoder) { super.init(coder: coder) }
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
    /// https://developer.apple.com/documentation/appkit/nsviewcontroller/isviewloaded
    open var isViewLoaded: Bool { loadedView != nil }
    /// https://developer.apple.com/documentation/appkit/nsviewcontroller/loadview()
    open func loadView() { loadedView = NSView() }
    /// https://developer.apple.com/documentation/appkit/nsviewcontroller/viewdidload()
    open func viewDidLoad() {}
}

/// https://developer.apple.com/documentation/appkit/nsnib (not main-thread-only in AppKit's headers)
open class NSNib: NSObject {
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
