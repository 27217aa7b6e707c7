// AuthenticationServices, as far as MSAL for Swift uses it: the web authentication session, its presentation
// context provider and anchor, and its errors. Started sessions go to `SurfaceAuthenticationSessions`, where a test
// answers them (not Apple API).

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

/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding
public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding/presentationanchor(for:)
    @MainActor func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}

/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession
open class ASWebAuthenticationSession: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/completionhandler
    public typealias CompletionHandler = (URL?, (any Error)?) -> Void

    /// The URL the session opens (the stand-in's).
    public let surfaceURL: URL
    /// The callback scheme the session waits for (the stand-in's).
    public let surfaceCallbackURLScheme: String?
    private let completion: CompletionHandler
    private var finished = false

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/init(url:callbackurlscheme:completionhandler:)
    public init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler) {
        surfaceURL = URL
        surfaceCallbackURLScheme = callbackURLScheme
        completion = completionHandler
        super.init()
    }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/presentationcontextprovider
    open weak var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)?
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/prefersephemeralwebbrowsersession
    open var prefersEphemeralWebBrowserSession: Bool = false
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/canstart
    open var canStart: Bool { !finished }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/start()
    /// (the stand-in asks the provider for its anchor, then hands the session to the test's handler).
    @MainActor open func start() -> Bool {
        guard canStart else { return false }
        guard let provider = presentationContextProvider else {
            surfaceComplete(callbackURL: nil, error: ASWebAuthenticationSessionError(.presentationContextNotProvided))
            return true
        }
        let anchor = provider.presentationAnchor(for: self)
        SurfaceAuthenticationSessions.started(self, anchor: anchor)
        return true
    }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/cancel()
    open func cancel() {
        surfaceComplete(callbackURL: nil, error: ASWebAuthenticationSessionError(.canceledLogin))
    }

    /// Ends the session as the system would: the redirect to the callback scheme, or an error (the stand-in's).
    public func surfaceComplete(callbackURL: URL?, error: (any Error)?) {
        guard !finished else { return }
        finished = true
        completion(callbackURL, error)
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

    /// Forgets the sessions started so far and the handler.
    public static func reset() { history = []; handler = nil }

    static func started(_ session: ASWebAuthenticationSession, anchor: ASPresentationAnchor) {
        let started = Started(session: session, anchor: anchor)
        history.append(started)
        handler?(started)
    }
}
