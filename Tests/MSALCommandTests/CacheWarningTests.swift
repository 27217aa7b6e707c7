import Foundation
import MSALTestSupport
import Testing
import MSALEmulator

/// A cache file the tool cannot read is moved aside, and the tool says so on stderr without `--verbose`.
@Suite("msal tool: unreadable cache warning")
struct CacheWarningTests {
    @Test(arguments: [false, true]) func unreadableCacheIsReportedOnStderr(viaEnvironment: Bool) async throws {
        let runner = try CommandRunner()
        defer { try? FileManager.default.removeItem(at: runner.home) }
        let cache = runner.home.appendingPathComponent("cache.json")
        try Data("{\"AccessToken\": [oops".utf8).write(to: cache)
        let output: ProcessOutput
        if viaEnvironment {
            output = try await runner.run(["accounts", "--json"], environment: [
                "MSAL_CLIENT_ID": EmulatorConfiguration.demoClientId, "MSAL_CACHE": cache.path])
        } else {
            output = try await runner.run(["accounts", "--json", "--client-id", EmulatorConfiguration.demoClientId,
                                           "--cache", cache.path])
        }
        #expect(output.status == 0)
        #expect(output.stdout == "[]\n")
        let aside = try FileManager.default.contentsOfDirectory(atPath: runner.home.path).filter { $0.hasPrefix("cache.json.corrupt-") }
        #expect(aside.count == 1)
        let movedTo = runner.home.appendingPathComponent(try #require(aside.first)).path
        #expect(output.stderr.contains(
            "warning: the token cache file \(cache.path) could not be read and was moved to \(movedTo)\n"))
    }

    @Test func defaultCacheFileIsWatchedToo() async throws {
        let runner = try CommandRunner()
        defer { try? FileManager.default.removeItem(at: runner.home) }
        // CommandRunner points XDG_DATA_HOME at <home>/data.
        let directory = runner.home.appendingPathComponent("data/msal-swift")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cache = directory.appendingPathComponent("msal_token_cache.json")
        try Data("garbage".utf8).write(to: cache)
        // The default cache is encrypted; a plaintext cache left by an earlier version is migrated, and one that
        // cannot be read is moved aside with a warning on stderr (not only in a verbose log).
        let output = try await runner.run(["accounts", "--client-id", EmulatorConfiguration.demoClientId])
        #expect(output.status == 0)
        #expect(output.stderr.contains("The unreadable token cache was moved aside to \(cache.path).corrupt-"), "\(output.stderr)")
    }

    @Test func unreadableEncryptedDefaultCacheIsAnErrorNamingTheFileAndIsLeftAlone() async throws {
        let runner = try CommandRunner()
        defer { try? FileManager.default.removeItem(at: runner.home) }
        let directory = runner.home.appendingPathComponent("data/msal-swift")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let cache = directory.appendingPathComponent("msal_token_cache.bin")
        try Data("garbage".utf8).write(to: cache)
        let output = try await runner.run(["accounts", "--client-id", EmulatorConfiguration.demoClientId])
        #expect(output.status == 1)
        #expect(output.stderr.contains(cache.path) && output.stderr.contains("left as it is"), "\(output.stderr)")
        #expect(try Data(contentsOf: cache) == Data("garbage".utf8))
    }
}
