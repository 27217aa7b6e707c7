import Foundation
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
@testable import MSALFileStorage
import MSALEmulator

/// Token requests shared across processes through the cache file's refresh lock, and the retry after another
/// process rotated the refresh token. Two application objects on one cache file stand for two processes: each has
/// its own in-process coordination, so only the file's locks join them.
@Suite("Refreshes shared across processes", .serialized)
struct CrossProcessRefreshTests {
    func makeApp(_ emulator: IdentityEmulator, file: URL, http: MSALRecordingHTTPClient,
                 storage: (any MSALTokenCacheStorage)? = nil) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: emulator.clientId, redirectUri: "http://localhost",
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
        config.httpClient = http
        config.cacheConfig.storage = storage ?? MSALFileTokenCacheStorage(fileURL: file)
        return try MSALPublicClientApplication(configuration: config)
    }

    func signIn(_ app: MSALPublicClientApplication, scopes: [String]) async throws -> MSALAccount {
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        return try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview)).account
    }

    /// Two application objects ("processes") on one cache file in a new directory, each with its own recording
    /// transport, against a new emulator.
    struct TwoProcesses {
        let emulator: IdentityEmulator
        let directory: URL
        let file: URL
        let httpA = MSALRecordingHTTPClient(), httpB = MSALRecordingHTTPClient()
        let appA: MSALPublicClientApplication, appB: MSALPublicClientApplication
        /// B's cache file, which counts B's requests for the refresh lock.
        let storageB: CountingRefreshLock

        static func start(_ tests: CrossProcessRefreshTests) async throws -> TwoProcesses {
            let emulator = try await startEmulator()
            do {
                return try TwoProcesses(emulator: emulator, directory: CacheFixtures.temporaryDirectory(), tests: tests)
            } catch {
                await emulator.stop()
                throw error
            }
        }

        private init(emulator: IdentityEmulator, directory: URL, tests: CrossProcessRefreshTests) throws {
            self.emulator = emulator
            self.directory = directory
            file = directory.appendingPathComponent("cache.json")
            storageB = CountingRefreshLock(base: MSALFileTokenCacheStorage(fileURL: file))
            appA = try tests.makeApp(emulator, file: file, http: httpA)
            appB = try tests.makeApp(emulator, file: file, http: httpB, storage: storageB)
        }

        func stop() {
            try? FileManager.default.removeItem(at: directory)
            Task { [emulator] in await emulator.stop() }
        }
    }

    @Test func refreshLockExcludesOtherHoldersOfTheSameKeyOnly() async throws {
        let directory = CacheFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = MSALFileTokenCacheStorage(fileURL: directory.appendingPathComponent("cache.json"))
        let second = MSALFileTokenCacheStorage(fileURL: directory.appendingPathComponent("cache.json"))
        // While one holder has key "a", another waiting for "a" times out with the typed error, and "b" is free.
        try await first.withRefreshLock(key: "a", timeout: 1) {
            await #expect(throws: MSALErrorInfo.self) {
                try await second.withRefreshLock(key: "a", timeout: 0.2) { }
            }
            do {
                try await second.withRefreshLock(key: "a", timeout: 0.2) { }
            } catch let error as MSALErrorInfo {
                #expect(error.internalCode == .internalErrorTokenCacheLockTimeout)
                #expect(!error.errorDescription.contains("\"a\""))
            }
            let other = try await second.withRefreshLock(key: "b", timeout: 1) { 7 }
            #expect(other == 7)
        }
        // Released when the body returns: free again. The lock file is private while it exists, and gone after.
        let lockFile = directory.appendingPathComponent("cache.json.refresh-lock").path
        let again = try await second.withRefreshLock(key: "a", timeout: 1) { () -> Int in
            #expect(FileFacts.permissions(lockFile).map { $0 & 0o777 } == 0o600)
            return 8
        }
        #expect(again == 8)
        #expect(!FileManager.default.fileExists(atPath: lockFile))
        // A file someone else put at that path (not empty: never one of the lock files) is used, and left there.
        try Data("keep".utf8).write(to: URL(fileURLWithPath: lockFile))
        _ = try await second.withRefreshLock(key: "a", timeout: 1) { 9 }
        #expect(try String(contentsOfFile: lockFile, encoding: .utf8) == "keep")
    }

    @Test func waitingForTheLockEndsWhenTheTaskIsCancelled() async throws {
        let directory = CacheFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = MSALFileTokenCacheStorage(fileURL: directory.appendingPathComponent("cache.json"))
        let other = MSALFileTokenCacheStorage(fileURL: directory.appendingPathComponent("cache.json"))
        try await storage.withRefreshLock(key: "k", timeout: 5) {
            let waiter = Task { try await other.withRefreshLock(key: "k", timeout: 60) { } }
            try await eventually("the other storage waits for the lock") { other.refreshLockWaiters == 1 }
            waiter.cancel()
            let started = Date()
            await #expect(throws: CancellationError.self) { try await waiter.value }
            #expect(Date().timeIntervalSince(started) < 10)
            #expect(other.refreshLockWaiters == 0)
        }
    }

    @Test func twoProcessesFindingOneExpiredTokenSendOneRefresh() async throws {
        let processes = try await TwoProcesses.start(self)
        defer { processes.stop() }
        let (file, httpA, httpB, appA, appB) = (processes.file, processes.httpA, processes.httpB, processes.appA, processes.appB)
        let account = try await signIn(appA, scopes: ["User.Read"])
        try CacheFixtures.expireAccessTokens(file)
        httpA.reset(); httpB.reset()

        // A's refresh is held at the transport until B is waiting for the lock; then both finish.
        let release = Gate()
        defer { release.openGate() }
        httpA.setHandler { request in
            if request.url.path.hasSuffix("/token") { try await release.pass() }
            return try await MSALDefaultHTTPClient.shared.send(request)
        }
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        let fromA = Task { try await appA.acquireTokenSilent(with: parameters) }
        try await release.waitForArrivals(1)
        let accountB = try #require(try appB.allAccounts().first)
        let fromB = Task {
            try await appB.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: accountB))
        }
        try await eventually("B asks for the refresh lock A holds") { processes.storageB.lockRequests == 1 }
        release.openGate()
        let (a, b) = (try await value(of: fromA), try await value(of: fromB))
        #expect(a.accessToken == b.accessToken)
        #expect(httpA.tokenRequests + httpB.tokenRequests == 1)
        #expect(httpB.tokenRequests == 0)
    }

    /// A cache file that counts the requests for its refresh lock.
    final class CountingRefreshLock: MSALTokenCacheStorage, MSALTokenCacheRefreshLocking, @unchecked Sendable {
        let base: MSALFileTokenCacheStorage
        private let count = LockedBox(0)
        init(base: MSALFileTokenCacheStorage) { self.base = base }
        var lockRequests: Int { count.get() }
        func currentVersion() throws -> MSALTokenCacheStorageVersion? { try base.currentVersion() }
        func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)? { try base.read() }
        func write(_ data: Data) throws -> MSALTokenCacheStorageVersion { try base.write(data) }
        func setAside(version: MSALTokenCacheStorageVersion) throws -> String? { try base.setAside(version: version) }
        func withExclusiveAccess<T>(_ body: () throws -> T) throws -> T { try base.withExclusiveAccess(body) }
        func withRefreshLock<T: Sendable>(key: String, timeout: TimeInterval,
                                          _ body: @Sendable () async throws -> T) async throws -> T {
            count.withLock { $0 += 1 }
            return try await base.withRefreshLock(key: key, timeout: timeout, body)
        }
    }

    /// A process of another SDK, which takes the cache lock but no refresh lock (MSAL for Python).
    struct WithoutRefreshLock: MSALTokenCacheStorage {
        let base: MSALFileTokenCacheStorage
        func currentVersion() throws -> MSALTokenCacheStorageVersion? { try base.currentVersion() }
        func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)? { try base.read() }
        func write(_ data: Data) throws -> MSALTokenCacheStorageVersion { try base.write(data) }
        func setAside(version: MSALTokenCacheStorageVersion) throws -> String? { try base.setAside(version: version) }
        func withExclusiveAccess<T>(_ body: () throws -> T) throws -> T { try base.withExclusiveAccess(body) }
    }

    @Test func aRefreshTokenRotatedByAnotherProcessIsRetriedOnce() async throws {
        let processes = try await TwoProcesses.start(self)
        defer { processes.stop() }
        let (file, httpA, httpB, appA, appB) = (processes.file, processes.httpA, processes.httpB, processes.appA, processes.appB)
        let account = try await signIn(appA, scopes: ["User.Read", "Mail.Read"])
        try CacheFixtures.expireAccessTokens(file)
        let accountB = try #require(try appB.allAccounts().first)
        httpA.reset()
        // The other process takes no refresh lock (as MSAL for Python): it can rotate the refresh token while B's
        // request is on its way. (A process of this library would wait for B's refresh lock instead.)
        let httpC = MSALRecordingHTTPClient()
        let configC = MSALPublicClientApplicationConfig(
            clientId: processes.emulator.clientId, redirectUri: "http://localhost",
            authority: try MSALAuthority(url: URL(string: "\(processes.emulator.httpURL.absoluteString)/\(processes.emulator.tenant)")!))
        configC.httpClient = httpC
        configC.cacheConfig.storage = WithoutRefreshLock(base: MSALFileTokenCacheStorage(fileURL: file))
        let appC = try MSALPublicClientApplication(configuration: configC)
        let accountC = try #require(try appC.allAccounts().first)

        // B sends the refresh token it read; just before it arrives, C (other scopes) rotates it.
        let rotatedFirst = LockedBox(false)
        httpB.setHandler { request in
            if request.url.path.hasSuffix("/token"), !rotatedFirst.get() {
                rotatedFirst.set(true)
                _ = try await appC.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["Mail.Read"], account: accountC))
            }
            return try await MSALDefaultHTTPClient.shared.send(request)
        }
        let result = try await appB.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: accountB))
        #expect(!result.accessToken.isEmpty)
        // B's first request was refused (its refresh token was rotated away), its retry used C's new one.
        #expect(httpB.tokenRequests == 2)
        #expect(httpC.tokenRequests == 1)
        // The cache holds one refresh token, and it still works.
        try CacheFixtures.expireAccessTokens(file)
        _ = try await appA.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
    }
}

extension CrossProcessRefreshTests {
    /// Real processes: `msal-bench refresh-race` starts P workers of T concurrent silent calls each on one expired
    /// token and fails unless every round sent exactly one refresh and served every caller the same new token.
    @Test(.enabled(if: CacheSharingTests.bench != nil)) func manyProcessesOnOneExpiredTokenSendOneRefresh() async throws {
        try await offThePool { try blockingManyProcessesOnOneExpiredTokenSendOneRefresh() }
    }

    private func blockingManyProcessesOnOneExpiredTokenSendOneRefresh() throws {
        let bench = try #require(CacheSharingTests.bench)
        let directory = CacheFixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let race = try CacheSharingTests.Peer(bench.path, ["refresh-race", "--processes", "6", "--tasks", "10",
                                                           "--rounds", "2", "--json"], in: directory)
        let report = try race.finish(timeout: 300)
        let rounds = try #require(report["rounds"] as? [[String: Any]], "\(report)")
        #expect(rounds.count == 2)
        for round in rounds {
            #expect(round["refresh_requests"] as? Int == 1, "\(round)")
            #expect(round["succeeded"] as? Int == 60, "\(round)")
            #expect(round["distinct_tokens"] as? Int == 1, "\(round)")
        }
    }
}

