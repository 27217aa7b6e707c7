import Foundation
import MSALTestSupport
import Logging
import Testing
import MSAL
@testable import MSALCore
@testable import MSALFileStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One cache file shared by MSAL for Swift processes and MSAL for Python processes (msal-extensions'
/// `PersistedTokenCache`, as MSAL for Python apps and the Azure CLI use it), all writing at once: nothing is lost,
/// nobody waits on a lock the other left behind, and no reader trusts a half-written file.
///
/// The Swift writers are `msal-bench cache-writer` processes (sign-ins through the public API); the Python side is
/// `Tests/python/cache_sharing_peer.py` with msal-extensions (both of its lock variants) from `.venv`.
@Suite("Token cache file shared with MSAL for Python", .serialized)
struct CacheSharingTests {
    static let peerScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("python/cache_sharing_peer.py").path

    /// The Python with msal-extensions and portalocker, if any.
    static let python: String? = {
        guard let python = InteropTests.python else { return nil }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = ["-c", "import msal_extensions, portalocker"]
        check.standardError = FileHandle.nullDevice
        guard (try? check.run()) != nil else { return nil }
        check.waitUntilExit()
        return check.terminationStatus == 0 ? python : nil
    }()

    static let bench: URL? = {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        var candidates: [URL] = []
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent("msal-bench"))
            directory = directory.deletingLastPathComponent()
        }
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("msal-bench"))
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    static let available = python != nil && bench != nil

    @Test func peersAreAvailableWhenRequired() {
        #expect(!InteropTests.required || Self.available, "MSAL_INTEROP_REQUIRED is set but msal-extensions or msal-bench is missing")
    }

    /// A started process whose output goes to files (no pipe to fill up).
    final class Peer {
        let process = Process()
        let output: URL
        let errors: URL

        init(_ executable: String, _ arguments: [String], in directory: URL) throws {
            let id = UUID().uuidString
            output = directory.appendingPathComponent("peer-\(id).out")
            errors = directory.appendingPathComponent("peer-\(id).err")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = try FileHandle(forWritingTo: errors)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// Waits up to `timeout` seconds (then kills it); returns its JSON output.
        func finish(timeout: TimeInterval = 60) throws -> [String: Any] {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
            process.waitUntilExit()
            let text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            // The report is the last line (a debugging line before it must not break the test).
            let lastLine = ((try? String(contentsOf: output, encoding: .utf8)) ?? "").split(separator: "\n").last ?? ""
            guard process.terminationStatus == 0, process.terminationReason == .exit,
                  let object = (try? JSONSerialization.jsonObject(with: Data(lastLine.utf8))) as? [String: Any] else {
                throw PeerFailed(message: "status \(process.terminationStatus): \(text.suffix(2000))")
            }
            return object
        }
    }

    struct PeerFailed: Error, CustomStringConvertible { let message: String; var description: String { message } }

    private func pythonPeer(_ arguments: [String], in directory: URL) throws -> Peer {
        try Peer(try #require(Self.python), [Self.peerScript] + arguments, in: directory)
    }

    private func swiftWriter(file: URL, first: Int, count: Int, in directory: URL) throws -> Peer {
        try Peer(try #require(Self.bench).path, ["cache-writer", "--file", file.path, "--first", "\(first)", "--count", "\(count)",
                                                "--lock-timeout", "120"],
                 in: directory)
    }

    private func usernames(_ file: URL) throws -> Set<String> {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let accounts = try #require(document["Account"] as? [String: [String: Any]])
        return Set(accounts.values.compactMap { $0["username"] as? String })
    }

    @Test(.enabled(if: available)) func swiftAndPythonWritersOnOneFileLoseNothing() async throws {
        try await offThePool { try blockingSwiftAndPythonWritersOnOneFileLoseNothing() }
    }

    private func blockingSwiftAndPythonWritersOnOneFileLoseNothing() throws {
        let directory = CacheFixtures.temporaryDirectory()
        let cacheDirectory = directory.appendingPathComponent("cache")
        try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = cacheDirectory.appendingPathComponent("msal_token_cache.json")
        // MSAL_SHARING_SIGNINS=100 runs the full-size figure of docs/token-cache.md (8 x 100 + 2 x 100 sign-ins).
        let swiftWriters = 8
        let perWriter = ProcessInfo.processInfo.environment["MSAL_SHARING_SIGNINS"].flatMap(Int.init).map { min(max($0, 1), 1000) } ?? 3
        let started = Date()
        var peers: [Peer] = []
        for writer in 0..<swiftWriters {
            peers.append(try swiftWriter(file: file, first: writer * perWriter, count: perWriter, in: directory))
        }
        let pythonPortalocker = try pythonPeer(["write", file.path, "100", "\(perWriter)", "portalocker"], in: directory)
        let pythonFileLock = try pythonPeer(["write", file.path, "200", "\(perWriter)", "filelock"], in: directory)
        let timeout = TimeInterval(60 + perWriter * 3)
        for peer in peers { _ = try peer.finish(timeout: timeout) }
        let portalocker = try pythonPortalocker.finish(timeout: timeout)
        let fileLock = try pythonFileLock.finish(timeout: timeout)
        let elapsed = Date().timeIntervalSince(started)

        var expected = Set((0..<(swiftWriters * perWriter)).map { "user\($0)@bench.example" })
        for user in 0..<perWriter { expected.insert("py\(100 + user)@contoso.example"); expected.insert("py\(200 + user)@contoso.example") }
        let found = try usernames(file)
        #expect(expected.subtracting(found).isEmpty, "lost: \(expected.subtracting(found).sorted())")
        #expect(found.count == expected.count)
        // MSAL for Python always got the lock, never waiting as long as its 5 s give-up time.
        for report in [portalocker, fileLock] {
            #expect(report["lock_failures"] as? Int == 0)
            if perWriter <= 10 { #expect((report["longest_wait"] as? Double ?? 99) < 4) }
        }
        #expect(FileFacts.permissions(file.path).map { $0 & 0o777 } == 0o600)
        // No lock file left behind, nothing set aside, no temporary file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: cacheDirectory.path) == ["msal_token_cache.json"])
        #expect(elapsed < 45 + Double(perWriter))
        print("cache sharing: \(swiftWriters) Swift + 2 Python writers x \(perWriter) sign-ins: \(found.count) accounts, "
              + "\(String(format: "%.1f", elapsed)) s, Python's longest lock wait "
              + "\([portalocker, fileLock].map { $0["longest_wait"] as? Double ?? -1 }.max() ?? -1) s")
    }

    @Test(.enabled(if: available)) func lockFileOfAKilledPythonProcessIsNotWaitedFor() async throws {
        try await offThePool { try blockingLockFileOfAKilledPythonProcessIsNotWaitedFor() }
    }

    private func blockingLockFileOfAKilledPythonProcessIsNotWaitedFor() throws {
        let directory = CacheFixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("msal_token_cache.json")
        // MSAL for Python killed while it holds the lock (fallback variant: nothing removes its lock file).
        let script = """
        import os, sys
        from msal_extensions import filelock
        filelock.CrossPlatLock(sys.argv[1] + ".lockfile").__enter__()
        os.kill(os.getpid(), 9)
        """
        let killed = Process()
        killed.executableURL = URL(fileURLWithPath: try #require(Self.python))
        killed.arguments = ["-c", script, file.path]
        try killed.run()
        killed.waitUntilExit()
        #expect(killed.terminationReason == .uncaughtSignal)
        #expect(FileManager.default.fileExists(atPath: file.path + ".lockfile"))

        let start = Date()
        let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: file), logger: RecordingLogHandler.logger().0)
        try store.update { $0.saveTokenResponse(CacheFixtures.signInResponse()) }
        // Well under the 10 s lock timeout: the killed process's lock file is not waited for (loose, for busy machines).
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(!FileManager.default.fileExists(atPath: file.path + ".lockfile"))

        // And MSAL for Python, after MSAL for Swift, does not wait either.
        let after = try pythonPeer(["write", file.path, "0", "1", "filelock"], in: directory).finish()
        #expect((after["longest_wait"] as? Double ?? 99) < 0.2)
        #expect(try usernames(file) == ["alice@contoso.example", "py0@contoso.example"])
    }

    /// MSAL for Python rewrites a 5 MB cache in place (truncate, write) under its lock, over and over, while this
    /// process reads it: every read sees the account, and nothing is set aside.
    @Test(.enabled(if: available)) func readersNeverTrustAFileBeingRewrittenInPlace() async throws {
        let outcome = try await offThePool { try readWhileRewriting(lock: true) }
        #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(3))")
    }

    /// Even a writer that ignores the lock and rewrites in place never gets its file set aside: unreadable data is
    /// set aside only when it stays the same under the lock.
    @Test(.enabled(if: available)) func aFileBeingRewrittenWithoutTheLockIsNeverSetAside() async throws {
        _ = try await offThePool { try readWhileRewriting(lock: false) }
    }

    private func readWhileRewriting(lock: Bool) throws -> (reads: Int, failures: [String]) {
        let directory = CacheFixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("msal_token_cache.json")
        let seed = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: file), logger: RecordingLogHandler.logger().0)
        try seed.update { $0.saveTokenResponse(CacheFixtures.signInResponse()) }

        let rewriter = try pythonPeer(["rewrite", file.path, "3"] + (lock ? [] : ["nolock"]), in: directory)
        // Wait for the big file, then read while it is being rewritten.
        let bigDeadline = Date().addingTimeInterval(30)
        // (Seen once is enough: a writer without the lock truncates the file again at any moment.)
        var sawBig = false
        while Date() < bigDeadline, !sawBig {
            sawBig = (FileFacts.size(file.path) ?? 0) >= 1_000_000
            if !sawBig { usleep(20_000) }
        }
        try #require(sawBig, "the peer never wrote its big cache")
        var reads = 0, missed = 0, failures: [String] = []
        let (logger, log) = RecordingLogHandler.logger()
        let readDeadline = Date().addingTimeInterval(120)
        while rewriter.process.isRunning, Date() < readDeadline {
            let store = TokenCacheStore(storage: MSALFileTokenCacheStorage(fileURL: file), logger: logger)
            do {
                if try store.currentDocument().accounts(environments: nil).count != 1 { missed += 1 }
            } catch {
                failures.append("\(error)")
            }
            reads += 1
        }
        let report = try rewriter.finish()
        #expect(report["rewrites"] as? Int ?? 0 > 20)
        #expect(report["lock_failures"] as? Int == 0)
        #expect(reads >= 1, "the file was never read while being rewritten")
        // Under the lock every read sees the account. A writer that ignores the lock and is descheduled between its
        // truncation and its write leaves an empty file that stays the same across the rereads, which is then
        // rightly taken as an empty cache: a missed read, never a file set aside.
        if lock { #expect(missed == 0, "\(missed) of \(reads) reads saw no account") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".corrupt-") }.isEmpty)
        #expect(!log.all.contains { $0.contains("moved aside") })
        return (reads, failures)
    }
}
