import Foundation
import Testing
import MSALEmulator
import MSALTestSupport

/// README's promise "a file the library did not create is never changed", through the built `msal` binary with its
/// defaults: a cache path that is a symbolic link to a file that is not a token cache (a decoy standing in for
/// `~/.bashrc` or `/etc/passwd`), to nothing, or to a directory, is refused with an error naming the path, and the
/// decoy keeps its content, inode and mode; a link to a real cache is written through.
@Suite("msal never changes a file it did not create", .serialized)
struct ForeignFileCommandTests {
    /// A scratch directory with a decoy "system file" and the facts to compare after each command.
    struct Scratch {
        let directory: URL
        let decoy: URL
        let decoyContent = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"

        init(runner: CommandRunner) throws {
            directory = runner.home.appendingPathComponent("scratch-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            decoy = directory.appendingPathComponent("passwd")
            try Data(decoyContent.utf8).write(to: decoy)
            chmod(decoy.path, 0o644)
        }

        func facts(_ url: URL) -> (inode: UInt64, mode: UInt32, content: String)? {
            var info = stat()
            guard lstat(url.path, &info) == 0, let data = FileManager.default.contents(atPath: url.path) else { return nil }
            return (UInt64(info.st_ino), UInt32(info.st_mode & 0o7777), String(decoding: data, as: UTF8.self))
        }

        func entries() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        }
    }

    private func options(_ setup: CommandLineTests.Setup, cache: URL) -> [String] {
        ["--authority", "\(setup.emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
         "--client-id", setup.emulator.clientId, "--cache", cache.path,
         "--graph-endpoint", setup.emulator.httpURL.absoluteString]
    }

    @Test func aLinkToAFileThatIsNotACacheIsRefusedAndTheFileIsUntouched() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let scratch = try Scratch(runner: setup.runner)
        let link = scratch.directory.appendingPathComponent("c.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: scratch.decoy.path)
        let before = try #require(scratch.facts(scratch.decoy))

        for command in [["accounts"], ["status"], ["token"], ["login", "--device-code"], ["logout"]] {
            let run = try await setup.runner.run(command + options(setup, cache: link))
            #expect(run.status != 0, "msal \(command.joined(separator: " ")) should fail: \(run.stdout)")
            #expect(run.stderr.contains(link.path) && run.stderr.contains("not a token cache"),
                    "msal \(command.joined(separator: " ")): \(run.stderr)")
            let after = try #require(scratch.facts(scratch.decoy))
            #expect(after.inode == before.inode && after.mode == before.mode && after.content == scratch.decoyContent)
            // Nothing set aside, nothing created beside the decoy (no temporary file, no token cache, no lock left).
            #expect(try scratch.entries() == ["c.json", "passwd"], "after msal \(command.joined(separator: " "))")
        }
        var info = stat()
        #expect(lstat(link.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    }

    @Test func aDanglingLinkOrALinkToADirectoryIsRefusedAndNothingIsCreated() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let scratch = try Scratch(runner: setup.runner)
        let dangling = scratch.directory.appendingPathComponent("dangling.json")
        let elsewhere = scratch.directory.appendingPathComponent("chosen-by-someone-else.json")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: elsewhere.path)
        let toDirectory = scratch.directory.appendingPathComponent("dir.json")
        let target = scratch.directory.appendingPathComponent("a-directory")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: toDirectory.path, withDestinationPath: target.path)

        for cache in [dangling, toDirectory] {
            for command in [["accounts"], ["login", "--device-code"]] {
                let run = try await setup.runner.run(command + options(setup, cache: cache))
                #expect(run.status != 0)
                #expect(run.stderr.contains(cache.path), "\(run.stderr)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
        #expect(try scratch.entries() == ["a-directory", "dangling.json", "dir.json", "passwd"])
    }

    @Test func aLinkToATokenCacheIsWrittenThroughAndKept() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let scratch = try Scratch(runner: setup.runner)
        let real = scratch.directory.appendingPathComponent("real-cache.json")
        let first = try await setup.runner.run(["login", "--device-code"] + options(setup, cache: real))
        #expect(first.status == 0, "\(first.stderr)")
        let link = scratch.directory.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: real.path)

        let token = try await setup.runner.run(["token", "--force-refresh"] + options(setup, cache: link))
        #expect(token.status == 0, "\(token.stderr)")
        var info = stat()
        #expect(lstat(link.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        let cached = String(decoding: try Data(contentsOf: real), as: UTF8.self)
        #expect(cached.contains(token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(scratch.facts(real)?.mode == 0o600)
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to give a decoy to another user"))
    func aLinkToACacheAnotherUserOwnsIsRefused() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let scratch = try Scratch(runner: setup.runner)
        // Another user's cache file (a valid cache document): tokens must never be written where they can read them.
        let theirs = scratch.directory.appendingPathComponent("theirs.json")
        try Data("{}".utf8).write(to: theirs)
        chmod(theirs.path, 0o666)
        #expect(chown(theirs.path, 65534, 65534) == 0)
        let link = scratch.directory.appendingPathComponent("c.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: theirs.path)
        let before = try #require(scratch.facts(theirs))
        for command in [["accounts"], ["login", "--device-code"]] {
            let run = try await setup.runner.run(command + options(setup, cache: link))
            #expect(run.status != 0)
            #expect(run.stderr.contains(link.path) && run.stderr.contains("another user owns"), "\(run.stderr)")
        }
        let after = try #require(scratch.facts(theirs))
        #expect(after.inode == before.inode && after.content == "{}")
    }

    @Test func anUnreadableRegularFileAtThePathItselfIsSetAsideNeverALinksTarget() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let scratch = try Scratch(runner: setup.runner)
        let garbled = scratch.directory.appendingPathComponent("garbled.json")
        try Data("{\"AccessToken\": {".utf8).write(to: garbled)
        let run = try await setup.runner.run(["accounts"] + options(setup, cache: garbled))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("moved aside"))
        let names = try scratch.entries()
        #expect(names.contains { $0.hasPrefix("garbled.json.corrupt-") } && !names.contains("garbled.json"))
        #expect(scratch.facts(scratch.decoy)?.content == scratch.decoyContent)
    }

    @Test func aCacheDirectoryEveryoneCanWriteGetsAWarning() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let scratch = try Scratch(runner: setup.runner)
        let open = scratch.directory.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        chmod(open.path, 0o777)
        let run = try await setup.runner.run(["accounts"] + options(setup, cache: open.appendingPathComponent("c.json")))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("writable by every user"), "\(run.stderr)")
        chmod(open.path, 0o1777)
        let sticky = try await setup.runner.run(["accounts"] + options(setup, cache: open.appendingPathComponent("c.json")))
        #expect(!sticky.stderr.contains("writable by every user"), "\(sticky.stderr)")
    }
}
