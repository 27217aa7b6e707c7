// AuthenticationServices, as far as MSAL for Swift uses it: the web authentication session, its callback, its
// presentation context provider and anchor, and its errors. Started sessions go to `SurfaceAuthenticationSessions`,
// where a test answers them (not Apple API).
//
// Apple's framework is Objective-C, and Swift imports Objective-C declarations as `@preconcurrency`: this module is
// compiled in Swift 5 language mode and its closure-taking declarations are marked `@preconcurrency`, so that a
// Swift 6 client gets the run-time isolation checks a Mac inserts (a main-actor closure called off the main thread
// traps). SDK generations (scripts/apple-surface.sh): `SURFACE_SDK_26` is Xcode 26.4 and later, `SURFACE_SDK_27` the
// 27 SDKs; neither is Xcode 16.

@_exported public import Foundation
#if canImport(UIKit)
public import UIKit
/// https://developer.apple.com/documentation/authenticationservices/aspresentationanchor
public typealias ASPresentationAnchor = UIWindow
#elseif canImport(AppKit)
public import AppKit
/// https://developer.apple.com/documentation/authenticationservices/aspresentationanchor
public typealias ASPresentationAnchor = NSWindow
#endif

/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerrordomain
public let ASWebAuthenticationSessionErrorDomain: String = "com.apple.AuthenticationServices.WebAuthenticationSession"

/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror-swift.struct
public struct ASWebAuthenticationSessionError: CustomNSError, Hashable, Sendable {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror-swift.struct/code
    public enum Code: Int, @unchecked Sendable {
        case canceledLogin = 1
        case presentationContextNotProvided = 2
        case presentationContextInvalid = 3
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    public static var errorDomain: String { ASWebAuthenticationSessionErrorDomain }
    public var errorCode: Int { code.rawValue }
}

#if SURFACE_SDK_26
/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding
/// Xcode 26.4 and later: the whole protocol is `@MainActor`, so a class conforming in its primary declaration
/// becomes main-actor isolated.
@MainActor public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding/presentationanchor(for:)
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}
#else
/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding
/// Xcode 16 (iOS 18 / macOS 15 SDKs; `ASWebAuthenticationSession.h` of the iOS 16.5 SDK alike): protocol and
/// requirement nonisolated, so a `@MainActor` witness is an error in Swift 6.
public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding/presentationanchor(for:)
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}
#endif

/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession
open class ASWebAuthenticationSession: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/completionhandler
    public typealias CompletionHandler = (URL?, (any Error)?) -> Void

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback
    /// (iOS 17.4, macOS 14.4: `ASWebAuthenticationSessionCallback`).
    @available(iOS 17.4, macOS 14.4, *)
    open class Callback: NSObject {
        /// The scheme or the https host and path the session ends at (the stand-in's).
        public let surfaceDescription: String
        private let matcher: (URL) -> Bool

        private init(surfaceDescription: String, matcher: @escaping (URL) -> Bool) {
            self.surfaceDescription = surfaceDescription
            self.matcher = matcher
            super.init()
        }

        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback/customscheme(_:)
        open class func customScheme(_ customScheme: String) -> Callback {
            Callback(surfaceDescription: customScheme) { $0.scheme?.lowercased() == customScheme.lowercased() }
        }

        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback/https(host:path:)
        open class func https(host: String, path: String) -> Callback {
            Callback(surfaceDescription: "https://\(host)\(path)") {
                $0.scheme == "https" && $0.host == host && $0.path == path
            }
        }

        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback/matchesurl(_:)
        open func matchesURL(_ url: URL) -> Bool { matcher(url) }
    }

    /// The URL the session opens (the stand-in's).
    public let surfaceURL: URL
    /// The callback scheme the session waits for (the stand-in's), whichever initializer named it.
    public let surfaceCallbackURLScheme: String?
    /// Whether the session was made with `init(url:callback:completionHandler:)` (the stand-in's).
    public let surfaceMadeWithCallback: Bool
    private let completion: CompletionHandler
    private let lock = NSLock()
    private var finished = false

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/init(url:callbackurlscheme:completionhandler:)
    /// The 27 SDKs deprecate it in favour of `init(url:callback:completionHandler:)` (availability "12.0–27.0"); a
    /// deployment target below 27 is not warned, as on a Mac.
    #if SURFACE_SDK_27
    @available(iOS, introduced: 12.0, deprecated: 27.0, message: "Use init(url:callback:completionHandler:)")
    @available(macOS, introduced: 10.15, deprecated: 27.0, message: "Use init(url:callback:completionHandler:)")
    #endif
    @preconcurrency
    public init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler) {
        surfaceURL = URL
        surfaceCallbackURLScheme = callbackURLScheme
        surfaceMadeWithCallback = false
        completion = completionHandler
        super.init()
    }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/init(url:callback:completionhandler:)
    @available(iOS 17.4, macOS 14.4, *)
    @preconcurrency
    public init(url URL: URL, callback: ASWebAuthenticationSession.Callback,
                completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler) {
        surfaceURL = URL
        surfaceCallbackURLScheme = callback.surfaceDescription
        surfaceMadeWithCallback = true
        completion = completionHandler
        super.init()
    }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/presentationcontextprovider
    open weak var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/prefersephemeralwebbrowsersession
    open var prefersEphemeralWebBrowserSession: Bool = false
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/canstart
    open var canStart: Bool { lock.lock(); defer { lock.unlock() }; return !finished }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/start()
    /// (nonisolated, `- (BOOL)start;`). The system asks the provider for its anchor on the main thread; the stand-in
    /// does so, then hands the session to the test's handler.
    open func start() -> Bool {
        guard canStart else { return false }
        guard let provider = presentationContextProvider else {
            surfaceComplete(callbackURL: nil, error: ASWebAuthenticationSessionError(.presentationContextNotProvided))
            return true
        }
        MainActor.assumeIsolated {
            let anchor = provider.presentationAnchor(for: self)
            SurfaceAuthenticationSessions.started(self, anchor: anchor)
        }
        return true
    }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/cancel()
    open func cancel() {
        surfaceComplete(callbackURL: nil, error: ASWebAuthenticationSessionError(.canceledLogin))
    }

    /// Ends the session as the system would: the redirect to the callback scheme, or an error, delivered on the
    /// calling thread (the stand-in's).
    public func surfaceComplete(callbackURL: URL?, error: (any Error)?) {
        lock.lock()
        let first = !finished
        finished = true
        lock.unlock()
        guard first else { return }
        completion(callbackURL, error)
    }

    /// Ends the session as macOS does (and iOS at times): the completion handler called on a background queue,
    /// like the XPC reply queue of the system's authentication agent (the stand-in's).
    public func surfaceCompleteFromBackground(callbackURL: URL?, error: (any Error)?) {
        SurfaceAuthenticationSessions.replyQueue.async {
            self.surfaceComplete(callbackURL: callbackURL, error: error)
        }
    }
}

/// The stand-in's sessions (not Apple API): each started session, with the anchor its provider gave, goes to the
/// handler a test sets, which completes it (or not).
@MainActor public enum SurfaceAuthenticationSessions {
    /// A started session and the window it was anchored to.
    public struct Started {
        public let session: ASWebAuthenticationSession
        public let anchor: ASPresentationAnchor
    }

    /// Every session started so far.
    public private(set) static var history: [Started] = []
    /// Answers each started session.
    public static var handler: (@MainActor (Started) -> Void)?

    /// The background queue `surfaceCompleteFromBackground` delivers on.
    nonisolated static let replyQueue = DispatchQueue(label: "AuthenticationServices.surface.reply")

    /// Forgets the sessions started so far and the handler.
    public static func reset() { history = []; handler = nil }

    static func started(_ session: ASWebAuthenticationSession, anchor: ASPresentationAnchor) {
        let started = Started(session: session, anchor: anchor)
        history.append(started)
        handler?(started)
    }
}
