import Foundation
import Testing
import MSAL
import MSALEmulator
import MSALTestSupport

/// `msal login`'s sign-in ladder through the built binary: under a real terminal (tmux) without a display, as over
/// SSH, the URL is printed and the redirect address pasted back; with a display the browser opens; with neither a
/// display nor a terminal, the device code flow.
@Suite("msal login: the headless sign-in ladder", .serialized)
struct SignInLadderCommandTests {
    static var tmuxAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/tmux")
    }

    /// The authorization URL's redirect, as the emulator (auto-approve) answers it, without following it.
    static func redirectAddress(for authorizationURL: URL) async throws -> String {
        let response = try await MSALDefaultHTTPClient.shared.send(MSALHTTPRequest(method: "GET", url: authorizationURL, timeout: 30))
        return try #require(response.headers.first { $0.key.lowercased() == "location" }?.value)
    }

    /// The authorization URL in `text` (a line of its own).
    static func authorizationURL(in text: String) -> URL? {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("http") && $0.contains("/oauth2/v2.0/authorize") }
            .flatMap { URL(string: $0) }
    }

    /// Runs tmux and waits for it. Through Python's `subprocess` with `close_fds`: the tmux server outlives the
    /// client and would otherwise keep the descriptor by which `Process` learns that the client exited.
    static func tmux(_ socket: String, _ arguments: [String]) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:], close_fds=True))",
                             "tmux", "-L", socket, "-f", "/dev/null"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
    }

    static func shellQuoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    @Test("Under a terminal with no display (an SSH session): URL printed, a wrong paste refused, the right one signs in")
    func pasteBackUnderTmux() async throws {
        guard Self.tmuxAvailable else {
            #expect(ProcessInfo.processInfo.environment["MSAL_TERMINAL_TESTS_REQUIRED"] == nil, "tmux is required")
            return
        }
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let work = setup.runner.home
        let errLog = work.appendingPathComponent("err.log")
        let outLog = work.appendingPathComponent("out.log")
        let exitFile = work.appendingPathComponent("exit")
        let environment = ["HOME=\(work.path)", "XDG_DATA_HOME=\(work.path)/data", "XDG_CONFIG_HOME=\(work.path)/config",
                           "XDG_STATE_HOME=\(work.path)/state", "PATH=/usr/bin:/bin", "TERM=xterm",
                           "SSH_CONNECTION=10.0.0.2 50000 10.0.0.1 22"]
        let command = (["env", "-i"] + environment + [setup.runner.binary.path, "login"] + setup.options)
            .map(Self.shellQuoted).joined(separator: " ")
            + " >\(Self.shellQuoted(outLog.path)) 2>\(Self.shellQuoted(errLog.path)); echo $? >\(Self.shellQuoted(exitFile.path)); sleep 60"
        let socket = "msal-test-\(UUID().uuidString.prefix(8))"
        try await Self.tmux(socket, ["new-session", "-d", "-s", "ladder", "-x", "300", "-y", "50", "sh", "-c", command])
        defer { Task { try? await Self.tmux(socket, ["kill-server"]) } }

        var url: URL?
        for _ in 0..<300 where url == nil {
            try await Task.sleep(nanoseconds: 100_000_000)
            url = Self.authorizationURL(in: (try? String(contentsOf: errLog, encoding: .utf8)) ?? "")
        }
        let authorizationURL = try #require(url, "no URL printed: \((try? String(contentsOf: errLog, encoding: .utf8)) ?? "")")
        let printed = try String(contentsOf: errLog, encoding: .utf8)
        #expect(printed.contains("any machine"))
        #expect(printed.contains("paste it here"))
        let redirect = try await Self.redirectAddress(for: authorizationURL)

        // Another sign-in's address (a different state) is refused and the wait goes on.
        let forged = redirect.replacingOccurrences(of: "state=", with: "state=x")
        try await Self.tmux(socket, ["send-keys", "-t", "ladder", "-l", forged])
        try await Self.tmux(socket, ["send-keys", "-t", "ladder", "Enter"])
        var refused = false
        for _ in 0..<100 where !refused {
            try await Task.sleep(nanoseconds: 100_000_000)
            refused = ((try? String(contentsOf: errLog, encoding: .utf8)) ?? "").contains("not accepted")
        }
        #expect(refused, "stderr: \((try? String(contentsOf: errLog, encoding: .utf8)) ?? "")")
        #expect(!FileManager.default.fileExists(atPath: exitFile.path))

        try await Self.tmux(socket, ["send-keys", "-t", "ladder", "-l", redirect])
        try await Self.tmux(socket, ["send-keys", "-t", "ladder", "Enter"])
        var status: String?
        for _ in 0..<300 where status == nil {
            try await Task.sleep(nanoseconds: 100_000_000)
            status = (try? String(contentsOf: exitFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let stderr = (try? String(contentsOf: errLog, encoding: .utf8)) ?? ""
        #expect(status == "0", "stderr: \(stderr)")
        #expect(((try? String(contentsOf: outLog, encoding: .utf8)) ?? "").contains("Signed in as \(setup.emulator.username)"))
        let code = URLComponents(string: redirect)?.queryItems?.first { $0.name == "code" }?.value ?? "-"
        #expect(!stderr.contains(code))
        for secret in try setup.cachedSecrets() { #expect(!stderr.contains(secret)) }
    }

    @Test("With a display, the browser opens ($BROWSER), and the listener takes the redirect")
    func browserWithDisplay() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        // A "browser" that follows the sign-in as a person would: the emulator approves, the redirect reaches msal.
        let browser = setup.runner.home.appendingPathComponent("browser.py")
        try """
        import sys, urllib.request, urllib.error
        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs): return None
        opener = urllib.request.build_opener(NoRedirect)
        try:
            opener.open(sys.argv[1])
        except urllib.error.HTTPError as answer:
            urllib.request.urlopen(answer.headers["Location"]).read()
        """.write(to: browser, atomically: true, encoding: .utf8)
        let login = try await setup.runner.run(["login"] + setup.options,
                                               environment: ["DISPLAY": ":99", "BROWSER": "python3 \(browser.path) %s"])
        #expect(login.status == 0, "stderr: \(login.stderr)")
        #expect(login.stderr.contains("if one did not open by itself"))
        #expect(login.stdout.contains("Signed in as \(setup.emulator.username)"))
    }

    @Test("No display and no terminal: the device code flow, saying why")
    func deviceCodeWithoutDisplayOrTerminal() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let login = try await setup.msal(["login"])
        #expect(login.status == 0, "stderr: \(login.stderr)")
        #expect(login.stderr.contains("No browser can show here"))
        #expect(login.stderr.contains("no terminal to paste into"))
        #expect(login.stdout.contains("Signed in as \(setup.emulator.username)"))
    }

    @Test("The ladder flags exclude each other (usage error)")
    func exclusiveFlags() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        let both = try await setup.msal(["login", "--browser", "--device-code"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("exclude each other"))
    }
}
