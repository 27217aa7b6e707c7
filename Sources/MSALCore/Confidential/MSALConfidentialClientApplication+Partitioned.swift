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
            try await onPartition(identifier) { [engine] in
                try engine.accounts(matching: MSALAccountEnumerationParameters(identifier: identifier)).first
            }
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

    // MARK: Running calls on a partition

    /// Runs `body` on `partition` when the application has a partitioned cache (or directly when it has none or
    /// the partition is unknown). `exclusive`: under the partition's lock from the start, for calls that change the
    /// partition without a token request.
    func onPartition<T: Sendable>(_ partition: String?, exclusive: Bool = false,
                                  _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let partitioned, let partition, !partition.isEmpty else { return try await body() }
        return try await partitioned.run(partition, exclusive: exclusive, owner: cacheOwnerId, body)
    }

    /// Runs `body` synchronously on `partition` when it is in memory; without a partitioned cache, directly.
    func onMemoryPartition<T>(_ partition: String?, _ body: () -> T?) -> T? {
        guard let partitioned else { return body() }
        guard let partition else { return nil }
        return partitioned.withMemoryPartition(partition, owner: cacheOwnerId, body)
    }

    /// Runs an authorization code redemption, whose partition (the account) is known from its result only.
    func onNewAccountPartition(_ body: @escaping @Sendable () async throws -> MSALResult) async throws -> MSALResult {
        guard let partitioned else { return try await body() }
        return try await partitioned.runThenStore(owner: cacheOwnerId, partition: { $0.account.identifier }, body)
    }
}
