public import Foundation

/// How MSAL reaches a broker app on the device (Microsoft Authenticator on iOS): whether it is installed, and opening
/// its request URL. On iOS the `MSAL` module's is `UIApplication`'s (`canOpenURL(_:)`, `open(_:options:)`); an app
/// declares `msauthv2` and `msauthv3` in `LSApplicationQueriesSchemes` for it. Tests pass their own, which hand the
/// request to an emulated broker.
public protocol MSALBrokerAppOpener: Sendable {
    /// Whether a URL of `scheme` (`msauthv2`, `msauthv3`) can be opened: the broker app is installed.
    func canOpenBroker(scheme: String) async -> Bool
    /// The same answer at once, for ``MSALPublicClientApplication/isCompatibleAADBrokerAvailable`` (a synchronous
    /// property, as in MSAL for iOS/macOS). The default says no.
    func canOpenBrokerImmediately(scheme: String) -> Bool
    /// Opens the broker's request URL (`msauthv2://broker?…`, or an `https` universal link, which must open the broker
    /// app and nothing else); false when it could not be opened (the library then uses its web view).
    func open(_ url: URL) async -> Bool
}

extension MSALBrokerAppOpener {
    public func canOpenBrokerImmediately(scheme: String) -> Bool { false }
}

/// Where the application's broker key (the AES-256 key the broker encrypts its answers with) and the broker's
/// application tokens are kept: on iOS the keychain, as MSAL for iOS/macOS keeps them.
public protocol MSALBrokerKeyStore: Sendable {
    /// The broker key, made (32 random bytes) and stored the first time.
    func brokerKey() throws -> Data
    /// The application token the broker gave `clientId`, if any.
    func applicationToken(clientId: String) throws -> String?
    /// Keeps the application token the broker gave `clientId`.
    func setApplicationToken(_ token: String, clientId: String) throws
    /// Keeps the request that waits for the broker's answer (MSAL's resume state; nil removes it), so that an answer
    /// that arrives after the app was relaunched is still taken: its tokens go to the cache. The default keeps
    /// nothing.
    func setPendingRequest(_ state: Data?) throws
    /// The request kept by ``setPendingRequest(_:)``, if any.
    func pendingRequest() throws -> Data?
}

extension MSALBrokerKeyStore {
    public func setPendingRequest(_ state: Data?) throws {}
    public func pendingRequest() throws -> Data? { nil }
}

/// A broker key store in memory, for tests and for apps that keep no broker state across launches.
public final class MSALInMemoryBrokerKeyStore: MSALBrokerKeyStore {
    private let state = LockedBox<(key: Data?, tokens: [String: String], pending: Data?)>((nil, [:], nil))

    /// An empty store.
    public init() {}

    public func brokerKey() throws -> Data {
        state.withLock { state in
            if let key = state.key { return key }
            let key = AuthenticatorBrokerRequest.makeBrokerKey()
            state.key = key
            return key
        }
    }

    public func applicationToken(clientId: String) throws -> String? { state.get().tokens[clientId] }

    public func setApplicationToken(_ token: String, clientId: String) throws {
        state.withLock { $0.tokens[clientId] = token }
    }

    public func setPendingRequest(_ state: Data?) throws { self.state.withLock { $0.pending = state } }

    public func pendingRequest() throws -> Data? { state.get().pending }
}

/// A broker app on the device (Microsoft Authenticator on iOS), reached by opening its URL and answering through
/// ``MSALPublicClientApplication/handleMSALResponse(_:sourceApplication:)``.
public struct MSALBrokerApp: Sendable {
    /// How the broker app is opened.
    public var opener: any MSALBrokerAppOpener
    /// Where the broker key is kept.
    public var keyStore: any MSALBrokerKeyStore

    /// A broker app reached with `opener`, its key kept in `keyStore`.
    public init(opener: any MSALBrokerAppOpener, keyStore: any MSALBrokerKeyStore) {
        self.opener = opener
        self.keyStore = keyStore
    }
}
