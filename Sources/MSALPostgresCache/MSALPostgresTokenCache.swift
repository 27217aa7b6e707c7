public import Foundation
public import Logging
public import MSALCore
public import PostgresNIO

/// A token cache for server applications that run many instances: one PostgreSQL row per cache partition
/// (``MSALPartitionedTokenCacheStorage``), each holding the partition's unified cache document encrypted with
/// AES-GCM (``MSALPostgresCacheKeyRing``), its version, when its last useful token expires, its key id and when it
/// was written.
///
/// ```swift
/// let cache = try MSALPostgresTokenCache(configuration: MSALPostgresTokenCache.Configuration(
///     postgres: PostgresClient.Configuration(host: "db", username: "app", password: pw, database: "app", tls: tls),
///     keyRing: try MSALPostgresCacheKeyRing(keyId: "2026-11", key: key)))
/// try await cache.prepareSchema()
/// config.partitionedCache = MSALPartitionedCacheConfig(storage: cache)
/// let app = try MSALConfidentialClientApplication(configuration: config)
/// // ...
/// await cache.shutdown()
/// ```
///
/// Lifecycle: the cache owns a `PostgresClient` (a connection pool, which reconnects by itself) and runs it in a
/// task of its own from creation until ``shutdown()``; with ``Configuration/notifications``, one pooled connection
/// listens for other instances' writes (`LISTEN`), so that applications drop partitions they hold in memory when
/// another instance changed them. Call ``shutdown()`` before the process exits.
///
/// Locks are PostgreSQL session-level advisory locks (`pg_try_advisory_lock`, retried with back-off until the
/// timeout) on a 64-bit hash of the partition, held on one pooled connection for their duration and released when
/// the body ends, throws or is cancelled (and by the server when the connection is lost).
public final class MSALPostgresTokenCache: MSALPartitionedTokenCacheStorage {
    /// What the cache needs: the database, the keys, and the table.
    public struct Configuration: Sendable {
        /// How to reach PostgreSQL (or a PostgreSQL-compatible server).
        public var postgres: PostgresClient.Configuration
        /// The encryption keys.
        public var keyRing: MSALPostgresCacheKeyRing
        /// The table (letters, digits and `_`, starting with a letter or `_`; at most 40 characters). Default
        /// `msal_token_cache`. The `NOTIFY` channel is `<table>_changes`.
        public var tableName = "msal_token_cache"
        /// Whether to listen for other instances' writes (one connection of the pool). Default true.
        public var notifications = true
        /// The logger for the cache's warnings (never with a token, a key or a partition's data).
        public var logger = Logger(label: "msal.postgres-cache")

        /// A configuration with the default table.
        public init(postgres: PostgresClient.Configuration, keyRing: MSALPostgresCacheKeyRing) {
            self.postgres = postgres
            self.keyRing = keyRing
        }
    }

    /// The configuration the cache was created with.
    public let configuration: Configuration
    /// The connection pool.
    public let client: PostgresClient
    let table: String
    private let runTask: Task<Void, Never>
    private let listenerTask = LockedTasks()
    private let handlers = HandlerList()
    /// The connections holding a partition's lock, by partition: reads and writes of a locked partition run on its
    /// lock's connection, so that lock holders never wait for a second connection of a busy pool.
    private let lockConnections = LockConnections()
    /// Bounds the connections that hold locks to half the pool, so that reads and writes always find one.
    private let lockPermits: AsyncPermits

    /// Creates the cache and starts its connection pool (no connection is opened until it is needed).
    public init(configuration: Configuration) throws {
        let table = configuration.tableName
        guard table.count <= 40, let first = table.unicodeScalars.first,
              first == "_" || ("a"..."z").contains(first) || ("A"..."Z").contains(first),
              table.unicodeScalars.allSatisfy({ $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0)
                  || ("0"..."9").contains($0) }) else {
            throw MSALPostgresCacheError.configuration("The table name must be an SQL identifier of at most 40 characters.")
        }
        self.configuration = configuration
        self.table = table.lowercased()
        let client = PostgresClient(configuration: configuration.postgres)
        self.client = client
        lockPermits = AsyncPermits(max(1, configuration.postgres.options.maximumConnections / 2))
        runTask = Task { await client.run() }
        if configuration.notifications { startListening() }
    }

    /// Stops listening, closes the pool and waits for its task to end. Calls after it fail (and applications go on
    /// without the storage).
    public func shutdown() async {
        listenerTask.cancelAll()
        runTask.cancel()
        await runTask.value
    }

    /// Creates the table, its version sequence and its expiry index if they are missing, and records the schema
    /// version (see `docs/postgres-cache.sql`). Safe to call from every instance at start-up.
    public func prepareSchema() async throws {
        try await PostgresCacheSchema.migrate(client, table: table, logger: configuration.logger)
    }

    // MARK: MSALPartitionedTokenCacheStorage

    /// Reads and decrypts one row by its primary key; sends no data when its version is `knownVersion`.
    public func read(partition: String, knownVersion: Int64?) async throws -> MSALPartitionedCacheRead {
        let rows = try await query(partition, """
            SELECT version, CASE WHEN version = \(knownVersion) THEN NULL ELSE data END, key_id
            FROM \(unescaped: table) WHERE partition_key = \(partition)
            """)
        for try await (version, data, keyId) in rows.decode((Int64, Data?, String).self) {
            guard let data else { return .unchanged }
            let plain = try configuration.keyRing.open(data, keyId: keyId, partition: partition)
            return .found(data: plain, version: version)
        }
        return .absent
    }

    /// Encrypts and writes one row if its version is still `expectedVersion`, with a new version from the table's
    /// sequence, and notifies the other instances in the same statement (delivered when it commits).
    public func write(partition: String, data: Data, expiresOn: Date, expectedVersion: Int64?) async throws -> Int64 {
        let sealed = try configuration.keyRing.seal(data, partition: partition)
        let channel = "\(table)_changes"
        let query: PostgresQuery
        if let expectedVersion {
            query = try """
                WITH written AS (
                    UPDATE \(unescaped: table)
                    SET data = \(sealed.data), key_id = \(sealed.keyId), expires_at = \(expiresOn), updated_at = now(),
                        version = nextval('\(unescaped: table)_version_seq')
                    WHERE partition_key = \(partition) AND version = \(expectedVersion)
                    RETURNING version)
                SELECT version, pg_notify(\(channel), version::text || ' ' || \(partition)) FROM written
                """
        } else {
            query = try """
                WITH written AS (
                    INSERT INTO \(unescaped: table) (partition_key, data, version, key_id, expires_at, updated_at)
                    VALUES (\(partition), \(sealed.data), nextval('\(unescaped: table)_version_seq'), \(sealed.keyId),
                            \(expiresOn), now())
                    ON CONFLICT (partition_key) DO NOTHING
                    RETURNING version)
                SELECT version, pg_notify(\(channel), version::text || ' ' || \(partition)) FROM written
                """
        }
        let rows = try await self.query(partition, query)
        for try await (version, _) in rows.decode((Int64, String?).self) { return version }
        throw MSALPartitionedCacheError(.versionConflict, "the partition was written by another instance first")
    }

    /// Holds the partition's session-level advisory lock on one pooled connection while `body` runs: tries
    /// `pg_try_advisory_lock` with back-off (5 ms doubling to 100 ms) until `timeout`, and always unlocks after
    /// `body` (also when it throws or the task is cancelled).
    public func withPartitionLock<T: Sendable>(partition: String, timeout: TimeInterval,
                                               _ body: () async throws -> T) async throws -> T {
        let key = PartitionLockKey.make(namespace: table, partition: partition)
        let logger = configuration.logger
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(0, timeout) * 1000))
        try await lockPermits.acquire(until: deadline, timeout: timeout)
        defer { lockPermits.release() }
        let connections = lockConnections
        return try await client.withConnection { connection in
            var pause = Duration.milliseconds(5)
            while true {
                var acquired = false
                for try await value in try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger)
                    .decode(Bool.self) { acquired = value }
                if acquired { break }
                if ContinuousClock.now >= deadline {
                    throw MSALPartitionedCacheError(.lockTimeout, "the partition lock was held by another instance for \(timeout) s")
                }
                try await Task.sleep(for: min(pause, deadline - ContinuousClock.now))
                pause = min(pause * 2, .milliseconds(100))
            }
            connections.set(partition, connection)
            let outcome: Result<T, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            connections.set(partition, nil)
            // Unlock even when this task is cancelled: the unlock runs in a task of its own.
            let unlocked = await Task {
                (try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger)) != nil
            }.value
            if !unlocked {
                // The session is in an unknown state: closing it makes the server release its locks.
                try? await connection.close()
            }
            return try outcome.get()
        }
    }

    /// Adds a handler for other instances' writes (see ``MSALPartitionedTokenCacheStorage``).
    public func addInvalidationHandler(_ handler: @escaping @Sendable (String?, Int64?) -> Void) {
        handlers.add(handler)
    }

    /// Runs `query` on the connection that holds `partition`'s lock, if this instance holds it, else on the pool.
    private func query(_ partition: String, _ query: PostgresQuery) async throws -> PostgresRowSequence {
        if let connection = lockConnections.get(partition) {
            return try await connection.query(query, logger: configuration.logger)
        }
        return try await client.query(query, logger: configuration.logger)
    }

    // MARK: Bulk import

    /// One partition to import: its serialized cache document (unified JSON format) and when its last useful token
    /// expires.
    public struct PartitionImport: Sendable {
        /// The partition key (home account id, `<clientId>_<tenant>`, or assertion hash).
        public var partition: String
        /// The serialized cache document (plaintext: it is encrypted on import).
        public var data: Data
        /// When the partition's last useful token expires.
        public var expiresOn: Date

        /// Creates an import row.
        public init(partition: String, data: Data, expiresOn: Date) {
            self.partition = partition
            self.data = data
            self.expiresOn = expiresOn
        }
    }

    /// Encrypts and inserts partitions in multi-row statements of `batchSize` rows (for migrations from another
    /// cache, and for load tests); partitions already stored are left as they are. Returns how many were inserted.
    @discardableResult
    public func importPartitions(_ partitions: [PartitionImport], batchSize: Int = 1000) async throws -> Int {
        var inserted = 0
        var start = partitions.startIndex
        while start < partitions.endIndex {
            let batch = partitions[start..<min(start + max(1, min(batchSize, 10_000)), partitions.endIndex)]
            start = batch.endIndex
            var sql = "INSERT INTO \(table) (partition_key, data, version, key_id, expires_at, updated_at) VALUES "
            var bindings = PostgresBindings(capacity: batch.count * 4)
            for (index, row) in batch.enumerated() {
                let sealed = try configuration.keyRing.seal(row.data, partition: row.partition)
                let base = index * 4
                sql += index == 0 ? "" : ", "
                sql += "($\(base + 1), $\(base + 2), nextval('\(table)_version_seq'), $\(base + 3), $\(base + 4), now())"
                bindings.append(row.partition)
                try bindings.append(sealed.data)
                bindings.append(sealed.keyId)
                bindings.append(row.expiresOn)
            }
            sql += " ON CONFLICT (partition_key) DO NOTHING RETURNING 1"
            let rows = try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: configuration.logger)
            for try await _ in rows { inserted += 1 }
        }
        return inserted
    }

    // MARK: Eviction

    /// Deletes the rows whose `expires_at` passed, in batches of `batchSize`; returns how many were deleted.
    @discardableResult
    public func deleteExpired(batchSize: Int = 10_000) async throws -> Int {
        var total = 0
        while true {
            var deleted = 0
            let rows = try await client.query(
                """
                WITH gone AS (
                    DELETE FROM \(unescaped: table) WHERE partition_key IN (
                        SELECT partition_key FROM \(unescaped: table) WHERE expires_at < now() LIMIT \(batchSize))
                    RETURNING 1)
                SELECT count(*) FROM gone
                """, logger: configuration.logger)
            for try await count in rows.decode(Int64.self) { deleted = Int(count) }
            total += deleted
            if deleted < batchSize { return total }
        }
    }

    /// Runs ``deleteExpired(batchSize:)`` every `interval` until ``shutdown()`` (failures are logged and retried
    /// at the next interval).
    public func startEviction(every interval: Duration) {
        let logger = configuration.logger
        listenerTask.add(Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, !Task.isCancelled else { return }
                do {
                    let deleted = try await self.deleteExpired()
                    if deleted > 0 { logger.debug("Deleted \(deleted) expired token cache partitions.") }
                } catch {
                    logger.warning("Deleting expired token cache partitions failed (\(type(of: error))).")
                }
            }
        })
    }

    // MARK: Notifications

    private func startListening() {
        let (client, channel, logger, handlers) = (client, "\(table)_changes", configuration.logger, handlers)
        listenerTask.add(Task {
            var connectedBefore = false
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await connection.listen(on: channel) { notifications in
                            // Notifications may have been missed while not listening.
                            if connectedBefore { handlers.call(nil, nil) }
                            connectedBefore = true
                            for try await notification in notifications {
                                let parts = notification.payload.split(separator: " ", maxSplits: 1)
                                guard parts.count == 2, let version = Int64(parts[0]) else { continue }
                                handlers.call(String(parts[1]), version)
                            }
                        }
                    }
                } catch {
                    if Task.isCancelled { return }
                    logger.warning("Listening for token cache changes failed (\(type(of: error))); retrying in 1 s.")
                }
                connectedBefore = true
                try? await Task.sleep(for: .seconds(1))
            }
        })
    }
}

/// Handlers of change notifications.
final class HandlerList: @unchecked Sendable {
    private let lock = NSLock()
    private var handlers: [@Sendable (String?, Int64?) -> Void] = []

    func add(_ handler: @escaping @Sendable (String?, Int64?) -> Void) {
        lock.lock()
        handlers.append(handler)
        lock.unlock()
    }

    func call(_ partition: String?, _ version: Int64?) {
        lock.lock()
        let current = handlers
        lock.unlock()
        for handler in current { handler(partition, version) }
    }
}

/// The connections that hold partition locks, by partition.
final class LockConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var connections: [String: PostgresConnection] = [:]

    func set(_ partition: String, _ connection: PostgresConnection?) {
        lock.withLock { connections[partition] = connection }
    }

    func get(_ partition: String) -> PostgresConnection? {
        lock.withLock { connections[partition] }
    }
}

/// A counting semaphore for tasks, with a deadline.
final class AsyncPermits: @unchecked Sendable {
    private let lock = NSLock()
    private var available: Int

    init(_ permits: Int) { available = permits }

    func acquire(until deadline: ContinuousClock.Instant, timeout: TimeInterval) async throws {
        var pause = Duration.milliseconds(1)
        while true {
            let taken = lock.withLock { () -> Bool in
                guard available > 0 else { return false }
                available -= 1
                return true
            }
            if taken { return }
            if ContinuousClock.now >= deadline {
                throw MSALPartitionedCacheError(.lockTimeout, "no connection for the partition lock within \(timeout) s")
            }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    func release() { lock.withLock { available += 1 } }
}

/// Background tasks owned by the cache, cancelled at shutdown.
final class LockedTasks: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [Task<Void, Never>] = []

    func add(_ task: Task<Void, Never>) {
        lock.lock()
        tasks.append(task)
        lock.unlock()
    }

    func cancelAll() {
        lock.lock()
        let current = tasks
        tasks = []
        lock.unlock()
        for task in current { task.cancel() }
    }
}
