public import Foundation

/// Told before and after MSAL reads or changes an ``MSALSerializedADALCacheProvider``, as MSAL for iOS/macOS's
/// `MSALSerializedADALCacheProviderDelegate`: load the latest data (``MSALSerializedADALCacheProvider/deserialize(_:)``)
/// before an access or a write, store it (``MSALSerializedADALCacheProvider/serializeData()``) after a write.
public protocol MSALSerializedADALCacheProviderDelegate: AnyObject {
    /// Before a lookup: load the latest data into the cache.
    func willAccessCache(_ cache: MSALSerializedADALCacheProvider)
    /// After a lookup.
    func didAccessCache(_ cache: MSALSerializedADALCacheProvider)
    /// Before a change: load the latest data into the cache.
    func willWriteCache(_ cache: MSALSerializedADALCacheProvider)
    /// After a change: serialize the cache and store it.
    func didWriteCache(_ cache: MSALSerializedADALCacheProvider)
}

/// ADAL for macOS's serialized token cache, read and written by MSAL beside its own, as MSAL for iOS/macOS does
/// with ``MSALCacheConfig/serializedADALCache``: an app moving from ADAL keeps its users signed in (their ADAL refresh
/// tokens give silent tokens, and ``MSALPublicClientApplication/account(forUsername:)`` finds them), and each
/// sign-in's refresh token is written back in ADAL's format, so that ADAL apps sharing the cache sign in silently
/// too (MSAL's seeding, `MSIDExternalAADCacheSeeder.m`).
///
/// The data is ADAL's archive (`{version: 1.0, tokenCache: {tokens: …}}`), read and written by this library's own
/// code on every platform. The app keeps it where ADAL kept it: through the delegate, or in a keychain item
/// (`init(keychainAttributes:trustedApplications:accessLabel:)` on macOS).
public final class MSALSerializedADALCacheProvider: @unchecked Sendable {
    /// The delegate given at creation; nil for a provider that keeps its data itself.
    public var delegate: (any MSALSerializedADALCacheProviderDelegate)? { persistence.delegate }

    /// How the provider's data is loaded and stored around each use.
    package enum Persistence {
        case delegate(any MSALSerializedADALCacheProviderDelegate)
        /// Load returns the stored data (nil: none); store keeps it.
        case store(load: () throws -> Data?, save: (Data) throws -> Void)

        var delegate: (any MSALSerializedADALCacheProviderDelegate)? {
            if case .delegate(let delegate) = self { delegate } else { nil }
        }
    }

    private let persistence: Persistence
    private let lock = NSRecursiveLock()
    private var cache = SerializedADALCache()

    /// A provider whose data the delegate loads and stores.
    public init(delegate: any MSALSerializedADALCacheProviderDelegate) throws {
        persistence = .delegate(delegate)
    }

    /// A provider whose data `persistence` loads and stores.
    package init(persistence: Persistence) {
        self.persistence = persistence
    }

    /// The cache's data, in ADAL's format.
    public func serializeData() throws -> Data {
        lock.withLock { cache.serialized() }
    }

    /// Replaces the cache with `serializedData` (ADAL's format). Throws ``MSALInternalError/internalErrorInvalidParameter``
    /// for data that is not an ADAL cache; the cache is then left as it was.
    public func deserialize(_ serializedData: Data) throws {
        let decoded: SerializedADALCache
        do {
            decoded = try SerializedADALCache(data: serializedData)
        } catch {
            throw MSALErrorInfo.invalidParameter("The data is not a serialized ADAL cache: \(error.reason).")
        }
        lock.withLock { cache = decoded }
    }

    /// Runs `body` on the cache between the will and did calls of a lookup or a change.
    private func using<T>(write: Bool, _ body: (inout SerializedADALCache) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        switch persistence {
        case .delegate(let delegate):
            write ? delegate.willWriteCache(self) : delegate.willAccessCache(self)
            defer { write ? delegate.didWriteCache(self) : delegate.didAccessCache(self) }
            return try body(&cache)
        case .store(let load, let save):
            if let data = try load() { try deserialize(data) }
            let result = try body(&cache)
            if write { try save(cache.serialized()) }
            return result
        }
    }
}

extension MSALSerializedADALCacheProvider: LegacyTokenCacheStore {
    package func legacyItems() throws -> [LegacyStoredItem] {
        try using(write: false) { $0.storedItems }
    }

    package func saveLegacyItem(_ item: LegacyStoredItem) throws {
        try using(write: true) { cache throws in
            do {
                try cache.save(item)
            } catch let failure as BinaryPropertyList.Failure {
                throw MSALErrorInfo.invalidParameter("The ADAL item could not be stored: \(failure.reason).")
            }
        }
    }

    package func removeLegacyItem(account: String, service: String) throws {
        try using(write: true) { $0.remove(account: account, service: service) }
    }
}
