import Foundation
import MSALTestSupport
import MSAL
import MSALTesting
import Testing

/// The partitioned token cache's own logic (memory in front of a shared storage, the partition lock around token
/// requests, the second look under it, compare-and-set write-back, storage failures), on the in-memory storage of
/// MSALTesting: application objects sharing one storage are instances of a server sharing one database. The same
/// scenarios run on PostgreSQL in MSALPostgresCacheTests.
@Suite("Partitioned token cache (in memory)")
struct PartitionedCacheTests {
    static let graph = ["https://graph.microsoft.com/.default"]
    static let appPartition = "\(MSALScriptedIdentityProvider().clientId)_\(MSALScriptedIdentityProvider().tenant)"

    struct Setup {
        let provider = MSALScriptedIdentityProvider()
        let clock = MSALTestClock()
        let storage: MSALInMemoryPartitionedTokenCacheStorage

        init(storageClock: MSALTestClock? = nil) {
            storage = MSALInMemoryPartitionedTokenCacheStorage(clock: storageClock ?? MSALTestClock(sleeps: .waitForAdvance))
            provider.clock = clock
        }

        func instance(_ tune: (inout MSALPartitionedCacheConfig) -> Void = { _ in }) throws -> MSALConfidentialClientApplication {
            let config = MSALConfidentialClientApplicationConfig(
                clientId: provider.clientId, clientCredential: .secret("s3cret"),
                authority: try MSALAuthority(url: URL(string: "https://\(provider.host)/\(provider.tenant)")!))
            config.httpClient = provider
            config.clock = clock
            var partitioned = MSALPartitionedCacheConfig(storage: storage)
            partitioned.lockTimeout = 5
            partitioned.storageTimeout = 30
            tune(&partitioned)
            config.partitionedCache = partitioned
            return try MSALConfidentialClientApplication(configuration: config)
        }

        func clientCredentials() -> Int {
            provider.tokenRequestBodies().filter { $0["grant_type"] == "client_credentials" }.count
        }

        func signIn(_ app: MSALConfidentialClientApplication) async throws -> MSALResult {
            let flow = try await app.startAuthorizationCodeFlow(
                with: MSALAuthorizationCodeParameters(scopes: ["User.Read"], redirectUri: "https://app.example/callback"))
            return try await app.acquireToken(byAuthorizationCodeFlow: flow, response: provider.authorize(flow.authorizationURL))
        }
    }

    @Test func appTokensLiveInTheirPartitionAndAreSharedByInstances() async throws {
        let setup = Setup()
        let a = try setup.instance(), b = try setup.instance()
        let first = try await a.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        #expect(first.tokenSource == .identityProvider)
        #expect(setup.storage.partitions == [Self.appPartition.lowercased()])
        let second = try await b.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        #expect(second.tokenSource == .cache)
        #expect(second.accessToken == first.accessToken)
        _ = try await b.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        #expect(setup.clientCredentials() == 1)
        #expect(b.partitionedCacheStatistics?.l2Hits == 1)
        #expect((b.partitionedCacheStatistics?.l1Hits ?? 0) >= 1)
        #expect(a.partitionedCacheStatistics?.tokenRequests == 1)
        #expect(a.partitionedCacheStatistics?.l2Writes == 1)
    }

    @Test func concurrentCallersOfTwoInstancesOnAnExpiredPartitionSendOneRequest() async throws {
        let setup = Setup()
        let a = try setup.instance(), b = try setup.instance()
        _ = try await a.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        _ = try await b.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        setup.clock.advance(3700)
        setup.provider.resetLog()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<32 {
                let app = index.isMultiple(of: 2) ? a : b
                group.addTask {
                    try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)).accessToken
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(setup.clientCredentials() == 1)
        #expect(tokens.count == 1)
        #expect(setup.storage.counts.conflicts == 0)
    }

    /// Another instance stores a token while this one waits for the partition's lock: this one reads the partition
    /// again under the lock and uses that token, with no request and no rerun of the call.
    @Test func aTokenStoredByAnotherInstanceMeanwhileIsUsedUnderTheLock() async throws {
        let setup = Setup()
        let app = try setup.instance()
        _ = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        setup.clock.advance(3700)
        // The other instance holds the lock; this one finds its token expired and waits for the lock.
        let partition = Self.appPartition.lowercased()
        let release = try await setup.storage.holdLockAsAnotherInstance(partition)
        let waiting = Task { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)) }
        try await eventually("the call waits for the lock") { setup.storage.counts.locks >= 2 }
        // Meanwhile the other instance gets a new token (here: an application on a storage of its own) and stores it.
        let elsewhere = Setup()
        elsewhere.clock.advance(setup.clock.now().timeIntervalSince(elsewhere.clock.now()))
        let other = try elsewhere.instance()
        let fresh = try await other.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        setup.storage.writeAsAnotherInstance(partition: partition, data: try #require(elsewhere.storage.data(of: partition)))
        release()
        let token = try await value(of: waiting)
        #expect(token.accessToken == fresh.accessToken)
        #expect(token.tokenSource == .cache)
        #expect(setup.clientCredentials() == 1)
        #expect(app.partitionedCacheStatistics?.tokenRequests == 1)
        #expect(app.partitionedCacheStatistics?.staleReloads == 1)
    }

    /// The storage's lock timer runs on a test clock: the timeout happens when the test moves it, not after real time.
    @Test func aPartitionLockedTooLongIsATypedTimeoutAndNoRequest() async throws {
        let storageClock = MSALTestClock(sleeps: .waitForAdvance)
        let setup = Setup(storageClock: storageClock)
        let app = try setup.instance { $0.lockTimeout = 2 }
        let release = try await setup.storage.holdLockAsAnotherInstance(Self.appPartition.lowercased())
        let call = Task { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)) }
        // The call's wait for the lock sleeps on the storage clock.
        #expect(await storageClock.waitForSleepers(1))
        storageClock.advance(2)
        do {
            _ = try await value(of: call)
            Issue.record("a token was returned while the partition was locked")
        } catch let error as MSALErrorInfo {
            #expect((error.underlyingError as? MSALPartitionedCacheError)?.kind == .lockTimeout)
        }
        #expect(setup.clientCredentials() == 0)
        #expect(app.partitionedCacheStatistics?.lockTimeouts == 1)
        release()
        _ = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        #expect(setup.clientCredentials() == 1)
    }

    @Test func withoutTheStorageCallsAreServedByDirectRequestsAndNothingIsWritten() async throws {
        struct Down: Error {}
        let setup = Setup()
        setup.storage.failing = Down()
        let app = try setup.instance()
        let token = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        #expect(token.tokenSource == .identityProvider)
        #expect((app.partitionedCacheStatistics?.l2Errors ?? 0) >= 1)
        #expect(setup.storage.partitions.isEmpty)
    }

    @Test func anUnreadablePartitionIsNeverOverwritten() async throws {
        let setup = Setup()
        let a = try setup.instance()
        _ = try await a.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        let stored = setup.storage.data(of: Self.appPartition.lowercased())
        setup.storage.tamper(Self.appPartition.lowercased())
        let b = try setup.instance()
        let token = try await b.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        #expect(token.tokenSource == .identityProvider)
        #expect((b.partitionedCacheStatistics?.unreadablePartitions ?? 0) >= 1)
        #expect(setup.storage.data(of: Self.appPartition.lowercased()) == stored)
    }

    /// A web app: the sign-in's tokens go to the account's partition, another instance signs the same user in
    /// silently from it, refreshes once for both, and sign-out empties the partition.
    @Test func aWebAppAccountLivesInItsPartitionAcrossInstances() async throws {
        let setup = Setup()
        let a = try setup.instance(), b = try setup.instance()
        let signedIn = try await setup.signIn(a)
        let home = try #require(signedIn.account.identifier)
        #expect(setup.storage.partitions == [home])
        let account = try #require(try await b.loadAccount(forIdentifier: home))
        let silent = try await b.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(silent.accessToken == signedIn.accessToken)
        setup.clock.advance(3700)
        setup.provider.resetLog()
        let refreshed = try await b.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        let fromA = try await a.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
        #expect(fromA.accessToken == refreshed.accessToken)
        #expect(setup.provider.tokenRequestBodies().filter { $0["grant_type"] == "refresh_token" }.count == 1)
        _ = try await a.signOut(signedIn.account)
        #expect(try await b.loadAccount(forIdentifier: home) == nil)
    }
}
