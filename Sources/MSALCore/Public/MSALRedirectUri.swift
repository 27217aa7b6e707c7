public import Foundation

/// An OAuth redirect URI, as MSAL for iOS/macOS's `MSALRedirectUri`: the URL the authorization server sends the user
/// back to, and whether Microsoft Authenticator (the broker) can answer to it (`msauth.<bundle id>://auth`, or
/// ADAL's `<scheme>://<bundle id>`). MSAL makes these; an application reads them.
public final class MSALRedirectUri: NSObject, NSCopying, @unchecked Sendable {
    /// The redirect URI requests use.
    public let url: URL
    /// Whether the broker can answer to it.
    public let brokerCapable: Bool

    /// The redirect URI `url` of an application whose bundle id is `bundleId`.
    package init(url: URL, bundleId: String?) {
        self.url = url
        self.brokerCapable = BrokerSchemeCheck.isBrokerCapable(url.absoluteString, bundleId: bundleId)
        super.init()
    }

    private init(url: URL, brokerCapable: Bool) {
        self.url = url
        self.brokerCapable = brokerCapable
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        MSALRedirectUri(url: url, brokerCapable: brokerCapable)
    }

    public override var description: String { url.absoluteString }
}
