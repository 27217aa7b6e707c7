import PostgresNIO

/// The cache's tables, created and migrated by the library (`docs/postgres-cache.sql` holds the same SQL for
/// the default table name). Plain SQL: no extensions, no procedural language.
enum PostgresCacheSchema {
    /// The schema version this library writes.
    static let version = 1

    /// The statements that create (or leave as they are) the tables of `table`, in order.
    static func statements(table: String) -> [String] {
        [
            """
            CREATE TABLE IF NOT EXISTS msal_schema_version (
                component text PRIMARY KEY,
                version integer NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE SEQUENCE IF NOT EXISTS \(table)_version_seq",
            """
            CREATE TABLE IF NOT EXISTS \(table) (
                partition_key text PRIMARY KEY,
                data bytea NOT NULL,
                version bigint NOT NULL,
                key_id text NOT NULL,
                expires_at timestamptz NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX IF NOT EXISTS \(table)_expires_at ON \(table) (expires_at)",
        ]
    }

    /// Creates the tables if needed and records (or checks) the schema version; a newer version than this
    /// library's is refused rather than written over.
    static func migrate(_ client: PostgresClient, table: String, logger: Logger) async throws {
        try await client.withConnection { connection in
            // One migration at a time (other instances, and other tables, wait here): concurrent
            // CREATE ... IF NOT EXISTS of the same objects can fail in PostgreSQL.
            let lockKey = PartitionLockKey.make(namespace: "schema", partition: "msal_token_cache")
            try await connection.query("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
            do {
                for statement in statements(table: table) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                let component = "token_cache:\(table)"
                var stored: Int?
                for try await value in try await connection.query(
                    "SELECT version FROM msal_schema_version WHERE component = \(component)", logger: logger
                ).decode(Int.self) { stored = value }
                if let stored, stored > version {
                    throw MSALPostgresCacheError.configuration(
                        "The token cache table \(table) has schema version \(stored); this library knows \(version).")
                }
                if stored == nil {
                    try await connection.query(
                        "INSERT INTO msal_schema_version (component, version) VALUES (\(component), \(version)) ON CONFLICT (component) DO NOTHING",
                        logger: logger)
                }
                try await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
                throw error
            }
        }
    }
}
