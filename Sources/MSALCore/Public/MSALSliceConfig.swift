public import Foundation

/// A test slice and data center of the identity platform to send requests to (`slice` and `dc` query parameters), as
/// MSAL for iOS/macOS's `MSALSliceConfig`: for testing against a particular deployment of the service. Set it as
/// ``MSALPublicClientApplicationConfig/sliceConfig``, which adds both to the configuration's extra query parameters.
public final class MSALSliceConfig: NSObject, NSCopying, @unchecked Sendable {
    private let box: LockedBox<(slice: String?, dc: String?)>

    /// The test slice (`slice`).
    public var slice: String? {
        get { box.get().slice }
        set { box.withLock { $0.slice = newValue } }
    }

    /// The data center (`dc`).
    public var dc: String? {
        get { box.get().dc }
        set { box.withLock { $0.dc = newValue } }
    }

    /// The parameters this configuration adds: `slice` and `dc`, each when set.
    public var sliceDictionary: [String: String] {
        let (slice, dc) = box.get()
        var dictionary: [String: String] = [:]
        dictionary["slice"] = slice
        dictionary["dc"] = dc
        return dictionary
    }

    /// A configuration of `slice` and `dc` (either may be nil). Failable as MSAL for iOS/macOS declares it; it does
    /// not fail.
    public init?(slice: String?, dc: String?) {
        box = LockedBox((slice, dc))
        super.init()
    }

    /// ``init(slice:dc:)``, as MSAL for iOS/macOS's class constructor.
    public class func config(slice: String?, dc: String?) -> MSALSliceConfig? {
        MSALSliceConfig(slice: slice, dc: dc)
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let (slice, dc) = box.get()
        return MSALSliceConfig(slice: slice, dc: dc) as Any
    }
}
