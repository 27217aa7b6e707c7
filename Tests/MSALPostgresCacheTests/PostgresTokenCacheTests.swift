import Foundation
import MSALCore
import MSALPostgresCache
import MSALTesting
import PostgresNIO
import Testing
import MSALTestSupport

/// The partitioned token cache on a real PostgreSQL server, shared by application instances with pools of their own.
@Suite("PostgreSQL token cache", .enabled(if: TestDatabase.isAvailable))
struct PostgresTokenCacheTests {
    static let graph = ["https://graph.microsoft.com/.default"]

    @Test func appTokensLiveInTheirPartitionAndAreSharedByInstances() async throws {
        try await withDatabase { table, provider, clock in
            let a = try await Instance.make(provider, clock: clock, table: table)
            let b = try await Instance.make(provider, clock: clock, table: table)
            defer { Task { await a.cache.shutdown(); await b.cache.shutdown() } }
            let first = try await a.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            #expect(first.tokenSource == .identityProvider)
            let rows = try await sql(a.cache, "SELECT partition_key, key_id, version FROM \(unescaped: table)")
            let decoded = try rows.map { try $0.decode((String, String, Int64).self) }
            #expect(decoded.map(\.0) == ["\(Instance.clientId)_\(Instance.tenant)"])
            #expect(decoded.first?.1 == "a")
            // The other instance reads the row (one L2 hit), then serves from memory.
            let second = try await b.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            #expect(second.tokenSource == .cache)
            #expect(second.accessToken == first.accessToken)
            _ = try await b.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            #expect(provider.grants("client_credentials") == 1)
            #expect(b.statistics.l2Hits == 1)
            #expect(b.statistics.l1Hits >= 1)
            // No token in the stored data: it is encrypted.
            let raw = try await sql(a.cache, "SELECT data FROM \(unescaped: table)")
            let data = try raw.first?.decode(Data.self) ?? Data()
            #expect(!String(decoding: data, as: UTF8.self).contains(first.accessToken))
        }
    }

    @Test func concurrentCallersOfTwoInstancesOnAnExpiredPartitionSendOneRequest() async throws {
        try await withDatabase { table, provider, clock in
            let a = try await Instance.make(provider, clock: clock, table: table)
            let b = try await Instance.make(provider, clock: clock, table: table)
            defer { Task { await a.cache.shutdown(); await b.cache.shutdown() } }
            provider.tokenDelay = 0.2
            _ = try await a.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            _ = try await b.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            clock.advance(3700)
            provider.resetLog()
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<32 {
                    let app = index.isMultiple(of: 2) ? a.app : b.app
                    group.addTask {
                        try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)).accessToken
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(provider.grants("client_credentials") == 1)
            #expect(tokens.count == 1)
        }
    }

    @Test func aWebAppInstanceNeverRedeemsARefreshTokenAnotherInstanceRotated() async throws {
        try await withDatabase { table, provider, clock in
            let a = try await Instance.make(provider, clock: clock, table: table)
            let b = try await Instance.make(provider, clock: clock, table: table)
            defer { Task { await a.cache.shutdown(); await b.cache.shutdown() } }
            let signedIn = try await a.signIn(provider)
            let homeAccountId = try #require(signedIn.account.identifier)
            let rows = try await sql(a.cache, "SELECT partition_key FROM \(unescaped: table)")
            #expect(try rows.map { try $0.decode(String.self) } == [homeAccountId])
            // Instance B finds the account in the shared cache and gets its token silently.
            let account = try #require(try await b.app.loadAccount(forIdentifier: homeAccountId))
            let silent = try await b.app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(silent.accessToken == signedIn.accessToken)
            // Both instances hold the partition in memory; B refreshes (the refresh token rotates).
            _ = try await a.app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
            clock.advance(3700)
            provider.resetLog()
            let refreshedByB = try await b.app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(refreshedByB.accessToken != signedIn.accessToken)
            // A's copy is outdated (its refresh token was rotated away): A must use B's tokens, not its old ones.
            let fromA = try await a.app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
            #expect(fromA.accessToken == refreshedByB.accessToken)
            #expect(provider.grants("refresh_token") == 1)
            // Expired again: 24 concurrent silent calls across both instances, one refresh.
            clock.advance(3700)
            provider.resetLog()
            provider.tokenDelay = 0.2
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<24 {
                    let (app, user) = index.isMultiple(of: 2) ? (a.app, signedIn.account) : (b.app, account)
                    group.addTask {
                        _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: user))
                    }
                }
                try await group.waitForAll()
            }
            #expect(provider.grants("refresh_token") == 1)
            // Sign-out removes the account's tokens from the shared partition. B's memory follows once the change
            // notification arrives (docs/postgres-cache.md, "Keeping memory fresh"): bounded wait on that condition.
            _ = try await a.app.signOut(signedIn.account)
            try await eventually(within: 30, "B to see the sign-out") {
                try await b.app.loadAccount(forIdentifier: homeAccountId) == nil
            }
        }
    }

    @Test func expiredPartitionsAreDeletedAndUsefulOnesKept() async throws {
        try await withDatabase { table, provider, clock in
            let a = try await Instance.make(provider, clock: clock, table: table)
            defer { Task { await a.cache.shutdown() } }
            _ = try await a.signIn(provider)                   // a refresh token: useful for 90 days
            // An app token that expired an hour ago (the application's clock is set back, not waited for).
            provider.expiresIn = 1
            clock.advance(-3600)
            _ = try await a.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            #expect(try await a.cache.deleteExpired() == 1)
            let rows = try await sql(a.cache, "SELECT count(*) FROM \(unescaped: table)")
            #expect(try rows.first?.decode(Int64.self) == 1)
        }
    }

    @Test func keysRotateWithoutDowntimeAndUnknownKeysAreNeverOverwritten() async throws {
        try await withDatabase { table, provider, clock in
            let old = try await Instance.make(provider, clock: clock, table: table)
            _ = try await old.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            // A new instance encrypts with key b and still reads rows written with a.
            let ring = try MSALPostgresCacheKeyRing(currentKeyId: "b", keys: ["a": TestDatabase.keyA, "b": TestDatabase.keyB])
            let rotated = try await Instance.make(provider, clock: clock, table: table, keyRing: ring)
            defer { Task { await old.cache.shutdown(); await rotated.cache.shutdown() } }
            #expect(try await rotated.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
                .tokenSource == .cache)
            // Its next write re-encrypts the row with b.
            let forced = MSALClientCredentialParameters(scopes: Self.graph)
            forced.forceRefresh = true
            _ = try await rotated.app.acquireTokenForClient(with: forced)
            let keyIds = try await sql(old.cache, "SELECT key_id, version FROM \(unescaped: table)")
            let (keyId, version) = try #require(try keyIds.first?.decode((String, Int64).self))
            #expect(keyId == "b")
            // An instance without key b cannot read the row: a direct request, a warning, and the row stays as it is.
            let stale = try await Instance.make(provider, clock: clock, table: table)
            defer { Task { await stale.cache.shutdown() } }
            provider.resetLog()
            #expect(try await stale.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
                .tokenSource == .identityProvider)
            #expect(stale.statistics.unreadablePartitions >= 1)
            let after = try await sql(old.cache, "SELECT key_id, version FROM \(unescaped: table)")
            let unchanged = try #require(try after.first?.decode((String, Int64).self))
            #expect(unchanged.0 == keyId && unchanged.1 == version)
        }
    }

    @Test func aTamperedRowIsATypedErrorForItsPartitionAndIsNotOverwritten() async throws {
        try await withDatabase { table, provider, clock in
            let a = try await Instance.make(provider, clock: clock, table: table)
            defer { Task { await a.cache.shutdown() } }
            _ = try await a.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            let partition = "\(Instance.clientId)_\(Instance.tenant)"
            try await sql(a.cache, """
                UPDATE \(unescaped: table) SET data = set_byte(data, 20, (get_byte(data, 20) + 1) % 256)
                """).forEach { _ in }
            await #expect(throws: MSALPartitionedCacheError.self) {
                _ = try await a.cache.read(partition: partition, knownVersion: nil)
            }
            try await sql(a.cache, "UPDATE \(unescaped: table) SET data = substring(data from 1 for 10)").forEach { _ in }
            do {
                _ = try await a.cache.read(partition: partition, knownVersion: nil)
                Issue.record("a truncated row was read")
            } catch let error as MSALPartitionedCacheError {
                #expect(error.kind == .unreadable)
            }
            // A fresh instance is served by a direct request and leaves the row alone.
            let b = try await Instance.make(provider, clock: clock, table: table)
            defer { Task { await b.cache.shutdown() } }
            #expect(try await b.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
                .tokenSource == .identityProvider)
            let rows = try await sql(a.cache, "SELECT length(data) FROM \(unescaped: table)")
            #expect(try rows.first?.decode(Int32.self) == 10)
        }
    }

    @Test func withoutTheDatabaseCallsAreServedFromMemoryOrByDirectRequestsInBoundedTime() async throws {
        try await withDatabase { table, provider, clock in
          try await TestDatabase.$applicationName.withValue(table) {
            // An instance whose database is unreachable (a closed port).
            let down = try await Instance.make(provider, clock: clock, table: table, port: 1)
            defer { Task { await down.cache.shutdown() } }
            let token = try await down.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            #expect(token.tokenSource == .identityProvider)
            #expect(try await down.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
                .tokenSource == .cache)
            // The calls returned (no hang) having met the unreachable database, not waited on it: its failure is
            // counted, and the second call was served from memory. (No wall-clock bound: the time these take on a
            // machine busy with the whole suite says nothing of the cache.)
            #expect(down.statistics.l2Errors >= 1)
            let user = try await down.signIn(provider)
            #expect(try await down.app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: user.account))
                .accessToken == user.accessToken)

            // A healthy instance whose connections are killed mid-run reconnects by itself.
            let a = try await Instance.make(provider, clock: clock, table: table)
            defer { Task { await a.cache.shutdown() } }
            _ = try await a.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            let admin = try await TestDatabase.makeCache(table: table, notifications: false)
            defer { Task { await admin.shutdown() } }
            _ = try await sql(admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND application_name = \(table)")
            clock.advance(3700)
            let again = try await a.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
            #expect(again.tokenSource == .identityProvider)
            let later = try await Instance.make(provider, clock: clock, table: table)
            defer { Task { await later.cache.shutdown() } }
            #expect(try await later.app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
                .accessToken == again.accessToken)
          }
        }
    }
}
