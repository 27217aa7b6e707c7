import Crypto
import Foundation

extension MSALConfidentialClientApplication {
    // MARK: Partitioned token cache

    /// The counters of the application's partitioned token cache (``MSALPartitionedCacheConfig``), or nil when it
    /// has none.
    public var partitionedCacheStatistics: MSALPartitionedCacheStatistics? { partitioned?.currentStatistics }

    /// The account with home account id `identifier`, read from the partitioned token cache's storage when its
    /// partition is not in memory (``account(forIdentifier:)`` looks in memory only). Without a partitioned cache,
    /// the same as ``account(forIdentifier:)``.
    public func loadAccount(forIdentifier identifier: String) async throws -> MSALAccount? {
        let correlationId = CorrelationID.next()
        return try await ErrorBoundary.run(.accounts, correlationId: correlationId) { [self] in
            try engine.accounts(matching: MSALAccountEnumerationParameters(identifier: identifier),
                                cache: await port(identifier)).first
        }
    }

    // MARK: Partition keys (the keys MSAL.NET suggests for distributed caches)

    /// An application's own tokens: `<clientId>_<tenant>`, the tenant as the request's authority names it.
    func appPartition(_ authority: MSALAuthority?) -> String {
        let descriptor = (authority ?? engine.settings.authority).descriptor
        return "\(engine.settings.clientId)_\(descriptor.tenant)".lowercased()
    }

    /// On-behalf-of tokens: the hash of the incoming assertion (as the cache stores it with the tokens).
    static func onBehalfOfPartition(_ request: OnBehalfOfRequest) -> String {
        let assertion = request.userAssertion.trimmingCharacters(in: .whitespacesAndNewlines)
        return Base64URL.encode(Data(SHA256.hash(data: Data(assertion.utf8))))
    }

    // MARK: The token cache port of a call

    /// The port a call on `partition` uses: the partition's, opened from memory or the storage, when the application
    /// has a partitioned cache (and the partition is known); else the application's own cache.
    func port(_ partition: String?) async -> any TokenCachePort {
        guard let partitioned, let partition, !partition.isEmpty else { return engine.cache }
        return await partitioned.port(partition)
    }

    /// ``port(_:)`` with no I/O: nil when the partition is not in memory (without a partitioned cache, the
    /// application's own cache).
    func memoryPort(_ partition: String?) -> (any TokenCachePort)? {
        guard let partitioned else { return engine.cache }
        guard let partition, !partition.isEmpty else { return nil }
        return partitioned.memoryPort(partition)
    }
}
