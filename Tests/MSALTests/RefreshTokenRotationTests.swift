import Foundation
import Testing
import MSAL
import MSALFileStorage
import MSALTesting
@testable import MSALCore
import MSALEmulator
import MSALTestSupport

/// Concurrent silent calls for different scopes of one account, through the public API, against the emulator,
/// which accepts each refresh token once (RFC 9700 §4.14.2's rotation for public clients): one redemption of the
/// account's refresh token at a time, the others take the rotated one from the cache. Before, each scope set redeemed
/// the same refresh token and all but the first failed with interactionRequired.
@Suite("One refresh token redemption at a time", .serialized)
struct RefreshTokenRotationTests {
    enum Storage: String, CaseIterable, Sendable {
        case memory, file
    }

    @Test(arguments: Storage.allCases)
    func concurrentSilentCallsForThreeScopeSetsAllSucceed(storage kind: Storage) async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rotation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage: any MSALTokenCacheStorage = kind == .memory
            ? MSALInMemoryTokenCacheStorage()
            : MSALFileTokenCacheStorage(fileURL: directory.appendingPathComponent("cache.json"))
        let http = MSALRecordingHTTPClient()
        let clock = MSALTestClock()
        let flows = EmulatorFlowTests()
        let app = try flows.makeApp(emulator, http: http, clock: clock, storage: storage)
        let scopeSets = [["User.Read"], ["Mail.Read"], ["Calendars.Read"]]
        let signIn = try await app.acquireToken(with: flows.interactive(scopeSets.flatMap { $0 }))
        // Every scope set has a cached token of its own, and then all of them expire.
        for scopes in scopeSets {
            _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: scopes, account: signIn.account))
        }
        emulator.clock.advance(by: 4000)
        clock.advance(4000)
        http.reset()

        let account = signIn.account
        let outcomes = await withTaskGroup(of: Result<String, any Error>.self) { group in
            for call in 0..<50 {
                let scopes = scopeSets[call % scopeSets.count]
                group.addTask {
                    do {
                        let result = try await app.acquireTokenSilent(
                            with: MSALSilentTokenParameters(scopes: scopes, account: account))
                        return .success(result.accessToken)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: [Result<String, any Error>]()) { $0.append($1) }
        }
        let failures = outcomes.compactMap { outcome -> String? in
            if case .failure(let error) = outcome { return "\(error)" }
            return nil
        }
        #expect(failures.count == 0, "\(failures.count) of 50 failed: \(failures.first ?? "")")
        // One redemption per scope set, one after the other, each with the refresh token the previous one stored.
        #expect(http.tokenRequests == scopeSets.count)
        // And the refresh token stored last still works.
        emulator.clock.advance(by: 4000)
        clock.advance(4000)
        let later = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(!later.accessToken.isEmpty)
    }
}
