import Foundation
import Testing
import MSAL
import MSALTesting
import MSALEmulator
import MSALSamples
@testable import MSALCommand
import MSALTestSupport

/// The examples' tutorial logic against the emulator, in process.
@Suite("Examples against the emulator", .serialized)
struct ExampleTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
    }

    @Test func graphTutorialRunsEveryStep() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        defer { Task { await emulator.stop() } }
        let lines = Lines()
        let settings = GraphTutorialSettings(
            clientId: emulator.clientId, authority: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)",
            graphEndpoint: emulator.httpURL.absoluteString, cacheStorage: MSALInMemoryTokenCacheStorage(),
            webAuthenticator: EmulatorAutoApproveAuthenticator())
        let tutorial = GraphTutorial(settings: settings) { lines.append($0) }
        let succeeded = await tutorial.run()
        #expect(succeeded, "\(lines.all)")
        let text = lines.all.joined(separator: "\n")
        #expect(text.contains("Result from Graph") && text.contains(emulator.username))
        #expect(text.contains("Sign out completed successfully"))
        #expect(!text.contains("eyJ"))
    }

    @Test func b2cSampleSignsInEditsProfileRefreshesAndSignsOut() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = "carol@example.com"
        let emulator = try await IdentityEmulator.start(configuration)
        defer { Task { await emulator.stop() } }
        let lines = Lines()
        let storage = MSALInMemoryTokenCacheStorage()
        let settings = B2CTutorialSettings(
            clientId: emulator.clientId, tenantName: "fabrikamb2c.onmicrosoft.com", authorityHost: emulator.httpURL.absoluteString,
            scopes: ["https://fabrikamb2c.onmicrosoft.com/api/demo.read"], cacheStorage: storage,
            webAuthenticator: EmulatorAutoApproveAuthenticator())
        let succeeded = await B2CTutorial(settings: settings) { lines.append($0) }.run()
        #expect(succeeded, "\(lines.all)")
        let text = lines.all.joined(separator: "\n")
        #expect(text.contains("Signed in as carol@example.com"))
        #expect(text.contains("Successfully edited profile"))
        #expect(text.contains("Refreshing token silently"))
        #expect(text.contains("Signed out"))
    }

    @Test func graphURLs() {
        #expect(GraphURL.url(endpoint: "https://graph.microsoft.com", path: "/me")?.absoluteString == "https://graph.microsoft.com/v1.0/me")
        #expect(GraphURL.url(endpoint: "https://graph.microsoft.com/", path: "beta/me")?.absoluteString == "https://graph.microsoft.com/beta/me")
        #expect(GraphURL.url(endpoint: "http://127.0.0.1:1/v1.0", path: "me")?.absoluteString == "http://127.0.0.1:1/v1.0/me")
    }
}

@Suite("Daemon example against the emulator")
struct DaemonExampleTests {
    @Test func theDaemonListsUsersWithAnAppTokenAndThenHitsTheCache() async throws {
        let emulator = try await IdentityEmulator.start(EmulatorConfiguration.default)
        defer { Task { await emulator.stop() } }
        let lines = LockedLines()
        let settings = DaemonSettings(
            clientId: EmulatorConfiguration.daemonClientId,
            authority: "\(emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
            credential: .secret("daemon-secret"), graphEndpoint: emulator.httpURL.absoluteString,
            cacheStorage: MSALInMemoryTokenCacheStorage())
        let names = try await DaemonTutorial(settings: settings, log: { lines.append($0) }).run()
        #expect(names.contains(emulator.username))
        #expect(lines.all.last?.contains("from the cache") == true)
    }
}

final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
