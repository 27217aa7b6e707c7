// ObjectiveC, as far as the seeds' code uses it: `#selector` makes a `Selector`. Also Foundation's selector-based
// observer registration, which Foundation on Linux leaves out.

public import Foundation

/// A method selector. https://developer.apple.com/documentation/objectivec/selector
public struct Selector: ExpressibleByStringLiteral, Hashable, Sendable {
    private let name: String

    /// https://developer.apple.com/documentation/objectivec/selector/init(_:)
    public init(_ str: String) { name = str }

    public init(stringLiteral value: String) { name = value }
}

extension NotificationCenter {
    /// https://developer.apple.com/documentation/foundation/notificationcenter/addobserver(_:selector:name:object:)
    /// (the stand-in records nothing: no Objective-C runtime sends the message).
    public func addObserver(_ observer: Any, selector aSelector: Selector, name aName: NSNotification.Name?,
                            object anObject: Any?) {}
}

#if canImport(FoundationNetworking)
public import FoundationNetworking

/// Foundation's own `URLSession.dataTask(with:completionHandler:)`, for the stand-in UIKit's `@preconcurrency` form
/// of it (which shadows this one in modules importing UIKit). Not Apple API.
public func surfaceFoundationDataTask(
    _ session: URLSession, _ request: URLRequest,
    _ completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
) -> URLSessionDataTask {
    session.dataTask(with: request, completionHandler: completionHandler)
}
#endif
