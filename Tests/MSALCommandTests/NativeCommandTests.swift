import Foundation
import Testing
import MSAL
import MSALEmulator
import MSALEmulatorCore
import MSALTestSupport

/// `msal native` in a real terminal (tmux) with no display, as over SSH: sign-up with an emailed code, a password
/// and attributes typed at the prompts, sign-in with a code and with a password, a password reset; passwords never
/// show on the screen, and the accounts are the tool's like any other (`msal status`).
@Suite("msal native: sign-up, sign-in and password reset at the terminal", .serialized)
struct NativeCommandTests {
    /// One `msal` command running in a tmux session: its stderr (the prompts) and stdout in files, keys sent to it.
    struct Terminal {
        let socket = "msal-native-\(UUID().uuidString.prefix(8))"
        let errLog: URL
        let outLog: URL
        let exitFile: URL

        /// `msal` with `arguments` in a new terminal. `interruptible`: the shell survives Ctrl-C (`trap`, which `msal`
        /// does not inherit) and records the terminal's settings (`stty -a`) once `msal` has ended.
        init(_ runner: CommandRunner, name: String, arguments: [String], interruptible: Bool = false) async throws {
            let work = runner.home
            errLog = work.appendingPathComponent("\(name).err")
            outLog = work.appendingPathComponent("\(name).out")
            exitFile = work.appendingPathComponent("\(name).exit")
            let environment = ["HOME=\(work.path)", "XDG_DATA_HOME=\(work.path)/data", "XDG_CONFIG_HOME=\(work.path)/config",
                               "XDG_STATE_HOME=\(work.path)/state", "PATH=/usr/bin:/bin", "TERM=xterm",
                               "SSH_CONNECTION=10.0.0.2 50000 10.0.0.1 22"]
            let quote = SignInLadderCommandTests.shellQuoted
            let settings = work.appendingPathComponent("\(name).stty").path
            let command = (interruptible ? "trap true INT; " : "")
                + (["env", "-i"] + environment + [runner.binary.path] + arguments).map(quote).joined(separator: " ")
                + " >\(quote(outLog.path)) 2>\(quote(errLog.path)); status=$?; "
                + (interruptible ? "stty -a >\(quote(settings)); " : "") + "echo $status >\(quote(exitFile.path)); sleep 60"
            try await SignInLadderCommandTests.tmux(socket, ["new-session", "-d", "-s", "native", "-x", "200", "-y", "50", "sh", "-c", command])
        }

        var stderr: String { (try? String(contentsOf: errLog, encoding: .utf8)) ?? "" }
        /// `stty -a` after `msal` ended (an interruptible terminal's).
        var settings: String { (try? String(contentsOf: errLog.deletingPathExtension().appendingPathExtension("stty"), encoding: .utf8)) ?? "" }
        var stdout: String { (try? String(contentsOf: outLog, encoding: .utf8)) ?? "" }

        /// Waits (bounded) until stderr shows `prompt` for the `count`-th time.
        func waitFor(_ prompt: String, count: Int = 1) async throws {
            for _ in 0..<300 {
                if stderr.components(separatedBy: prompt).count - 1 >= count { return }
                if FileManager.default.fileExists(atPath: exitFile.path) { break }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            Issue.record("no prompt \"\(prompt)\" (#\(count)); stderr: \(stderr)")
            throw CancellationError()
        }

        /// Presses Ctrl-C.
        func interrupt() async throws {
            try await SignInLadderCommandTests.tmux(socket, ["send-keys", "-t", "native", "C-c"])
        }

        /// Waits (bounded) until the command has ended.
        func waitForExit() async throws {
            try await eventually { FileManager.default.fileExists(atPath: exitFile.path) }
        }

        func type(_ text: String) async throws {
            try await SignInLadderCommandTests.tmux(socket, ["send-keys", "-t", "native", "-l", text])
            try await SignInLadderCommandTests.tmux(socket, ["send-keys", "-t", "native", "Enter"])
        }

        /// What the terminal shows now.
        func screen() async throws -> String {
            let file = errLog.deletingLastPathComponent().appendingPathComponent("screen-\(socket).txt")
            try await SignInLadderCommandTests.tmux(socket, ["capture-pane", "-t", "native", "-S", "-100", ";",
                                                             "save-buffer", file.path])
            return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        }

        /// The exit status, waited for (bounded).
        func status() async throws -> String? {
            for _ in 0..<300 {
                if let text = try? String(contentsOf: exitFile, encoding: .utf8) { return text.trimmingCharacters(in: .whitespacesAndNewlines) }
                try await Task.sleep(nanoseconds: 100_000_000)
            }
            return nil
        }

        func close() { Task { [socket] in try? await SignInLadderCommandTests.tmux(socket, ["kill-server"]) } }
    }

    /// The options of `msal native` for the emulator's External ID tenant and app, with the token cache `cache`.
    static func options(_ emulator: IdentityEmulator, cache: URL) -> [String] {
        ["--authority", "\(emulator.httpURL.absoluteString)/\(EmulatorConfiguration.externalTenantDomain)",
         "--client-id", EmulatorConfiguration.nativeAuthClientId, "--cache", cache.path]
    }

    static func code(_ emulator: IdentityEmulator, for username: String) async throws -> String {
        var components = URLComponents(url: emulator.httpURL.appendingPathComponent("_emulator/native-auth/codes"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "username", value: username)]
        let (_, _, body) = try await NoRedirectFetcher.fetch(components.url!)
        let codes = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["codes"] as? [[String: Any]]
        return try #require(codes?.last?["code"] as? String)
    }

    @Test("Ctrl-C at the password prompt ends msal with the terminal's echo back on")
    func echoRestoredOnInterrupt() async throws {
        guard SignInLadderCommandTests.tmuxAvailable else {
            #expect(ProcessInfo.processInfo.environment["MSAL_TERMINAL_TESTS_REQUIRED"] == nil, "tmux is required")
            return
        }
        let emulator = try await IdentityEmulator.start(EmulatorConfiguration.default)
        defer { Task { await emulator.stop() } }
        let runner = try CommandRunner()
        let options = Self.options(emulator, cache: runner.home.appendingPathComponent("cache.json"))
            + ["--username", EmulatorConfiguration.customerWithPassword]
        let signIn = try await Terminal(runner, name: "interrupted", arguments: ["native", "sign-in"] + options,
                                        interruptible: true)
        defer { signIn.close() }
        try await signIn.waitFor("Password: ")
        try await signIn.interrupt()
        try await signIn.waitForExit()
        let settings = signIn.settings
        #expect(settings.contains(" echo ") || settings.contains("\necho "), "\(settings)")
        #expect(!settings.contains("-echo "), "\(settings)")
    }

    @Test("Sign up, sign in with a code, reset a password and sign in with it, all typed at the prompts")
    func nativeFlowsUnderTmux() async throws {
        guard SignInLadderCommandTests.tmuxAvailable else {
            #expect(ProcessInfo.processInfo.environment["MSAL_TERMINAL_TESTS_REQUIRED"] == nil, "tmux is required")
            return
        }
        let emulator = try await IdentityEmulator.start(EmulatorConfiguration.default)
        defer { Task { await emulator.stop() } }
        let runner = try CommandRunner()
        let cache = runner.home.appendingPathComponent("cache.json")
        let options = Self.options(emulator, cache: cache)

        // Sign-up: the email asked for, the code, a password (refused once: too weak), the required attribute.
        let newUser = "katherine@example.org"
        let signUp = try await Terminal(runner, name: "signup", arguments: ["native", "sign-up"] + options)
        defer { signUp.close() }
        try await signUp.waitFor("Email: ")
        try await signUp.type(newUser)
        try await signUp.waitFor("Code sent to ka***@ex***.org")
        try await signUp.type("00000000")
        try await signUp.waitFor("That code is not right.")
        try await signUp.waitFor("Code sent to", count: 2)
        try await signUp.type(try await Self.code(emulator, for: newUser))
        try await signUp.waitFor("New password: ")
        try await signUp.type("weak")
        try await signUp.waitFor("does not accept this password")
        try await signUp.waitFor("New password: ", count: 2)
        let password = "Orb1t!Calculat0r"
        try await signUp.type(password)
        try await signUp.waitFor("displayName: ")
        try await signUp.type("Katherine Johnson")
        #expect(try await signUp.status() == "0", "stderr: \(signUp.stderr)")
        #expect(signUp.stdout.contains("Signed up and signed in as \(newUser)."))
        // The prompts go to the stderr file; the screen shows what the terminal echoed: the email and the name, never
        // a password.
        let signUpScreen = try await signUp.screen()
        #expect(signUpScreen.contains(newUser) && signUpScreen.contains("Katherine Johnson"), "screen: \(signUpScreen)")
        #expect(!signUpScreen.contains(password) && !signUpScreen.contains("weak"), "a password showed: \(signUpScreen)")

        // Sign-in with an emailed code (a user without a password).
        let codeUser = EmulatorConfiguration.customerWithCode
        let signIn = try await Terminal(runner, name: "signin", arguments: ["native", "sign-in", "--username", codeUser] + options)
        defer { signIn.close() }
        try await signIn.waitFor("Code sent to ol***@ex***.org")
        try await signIn.type(try await Self.code(emulator, for: codeUser))
        #expect(try await signIn.status() == "0", "stderr: \(signIn.stderr)")
        #expect(signIn.stdout.contains("Signed in as \(codeUser)."))

        // Password reset for the new user, then sign-in with the new password.
        let reset = try await Terminal(runner, name: "reset", arguments: ["native", "reset-password", "--username", newUser] + options)
        defer { reset.close() }
        try await reset.waitFor("Code sent to")
        try await reset.type(try await Self.code(emulator, for: newUser))
        try await reset.waitFor("New password: ")
        let newPassword = "N3w!Trajectory"
        try await reset.type(newPassword)
        #expect(try await reset.status() == "0", "stderr: \(reset.stderr)")
        #expect(reset.stdout.contains("Password reset; signed in as \(newUser)."))
        // Native authentication keeps one account per app: the sign-in before is signed out, and the tool says so.
        #expect(reset.stderr.contains("Signed out \(codeUser)"), "stderr: \(reset.stderr)")
        #expect(!(try await reset.screen()).contains(newPassword))

        let again = try await Terminal(runner, name: "again", arguments: ["native", "sign-in", "--username", newUser] + options)
        defer { again.close() }
        try await again.waitFor("Password: ")
        try await again.type(password)
        try await again.waitFor("The password is not right.")
        try await again.waitFor("Password: ", count: 2)
        try await again.type(newPassword)
        #expect(try await again.status() == "0", "stderr: \(again.stderr)")
        #expect(!(try await again.screen()).contains(newPassword))

        // The accounts are the tool's: `msal status` lists them, `msal token` answers from the cache.
        let status = try await runner.run(["status"] + options)
        #expect(status.stdout.contains(newUser), "\(status.stdout)\n\(status.stderr)")
        let token = try await runner.run(["token", "--account", newUser] + options)
        #expect(token.status == 0 && token.stdout.hasPrefix("eyJ"), "\(token.stderr)")
        // Sign-out: `msal logout` removes the account (a native sign-in already signed the app's other account out of it).
        let logout = try await runner.run(["logout", "--account", newUser] + options)
        #expect(logout.status == 0, "\(logout.stderr)")
        let after = try await runner.run(["status"] + options)
        #expect(after.status == 0 && !after.stdout.contains(newUser) && !after.stdout.contains(codeUser), "\(after.stdout)")
    }

    @Test("A second factor and registering a strong method, typed at the prompts")
    func strongAuthUnderTmux() async throws {
        guard SignInLadderCommandTests.tmuxAvailable else {
            #expect(ProcessInfo.processInfo.environment["MSAL_TERMINAL_TESTS_REQUIRED"] == nil, "tmux is required")
            return
        }
        let emulator = try await IdentityEmulator.start(EmulatorConfiguration.default)
        defer { Task { await emulator.stop() } }
        let runner = try CommandRunner()
        let options = Self.options(emulator, cache: runner.home.appendingPathComponent("cache.json"))

        // A second factor: the password, a method picked from the list, the code sent to it.
        let mfaUser = EmulatorConfiguration.customerWithMFA
        let mfa = try await Terminal(runner, name: "mfa", arguments: ["native", "sign-in", "--username", mfaUser] + options)
        defer { mfa.close() }
        try await mfa.waitFor("Password: ")
        try await mfa.type("Passw0rd!")
        try await mfa.waitFor("Method [1-2]: ")
        #expect(mfa.stderr.contains("1. email ma***@ex***.org") && mfa.stderr.contains("2. sms +******00"), "\(mfa.stderr)")
        try await mfa.type("1")
        try await mfa.waitFor("Code sent to ma***@ex***.org")
        try await mfa.type(try await Self.code(emulator, for: "mary.backup@example.org"))
        #expect(try await mfa.status() == "0", "stderr: \(mfa.stderr)")
        #expect(mfa.stdout.contains("Signed in as \(mfaUser)."))
        #expect(!(try await mfa.screen()).contains("Passw0rd!"))

        // Registration: the password, an address (refused once: blocked), the code sent to the new one.
        let newUser = EmulatorConfiguration.customerRegistering
        let register = try await Terminal(runner, name: "register", arguments: ["native", "sign-in", "--username", newUser] + options)
        defer { register.close() }
        try await register.waitFor("Password: ")
        try await register.type("Passw0rd!")
        try await register.waitFor("Email address for sign-in codes: ")
        try await register.type("blocked@example.org")
        try await register.waitFor("does not take this address")
        try await register.waitFor("Email address for sign-in codes: ", count: 2)
        try await register.type("linus.codes@example.org")
        try await register.waitFor("Code sent to linus.codes@example.org")
        try await register.type(try await Self.code(emulator, for: "linus.codes@example.org"))
        #expect(try await register.status() == "0", "stderr: \(register.stderr)")
        #expect(register.stdout.contains("Signed in as \(newUser)."))
    }

    @Test("The service requires the browser: the sign-in goes on as `msal login` does; an unknown user is an error")
    func browserFallback() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = EmulatorConfiguration.customerWithPassword
        configuration.lifetimes.deviceCodeInterval = 1
        let emulator = try await IdentityEmulator.start(configuration)
        defer { Task { await emulator.stop() } }
        let runner = try CommandRunner()
        let options = Self.options(emulator, cache: runner.home.appendingPathComponent("c.json"))
        // A terminal that offers codes only, for a user who signs in with a password: the service answers
        // `redirect`. With no terminal and no display here, the browser sign-in is the device code flow, which the
        // emulator approves for that user.
        let output = try await runner.run(["native", "sign-in", "--challenge-types", "oob",
                                           "--username", EmulatorConfiguration.customerWithPassword] + options)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("requires a browser sign-in"), "\(output.stderr)")
        #expect(output.stdout.contains("Signed in as \(EmulatorConfiguration.customerWithPassword)."), "\(output.stdout)")

        let unknown = try await runner.run(["native", "sign-in", "--username", "nobody@example.org"] + options)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("AADSTS50034"), "\(unknown.stderr)")
        let bad = try await runner.run(["native", "sign-in", "--challenge-types", "sms"] + options)
        #expect(bad.status == 64 && bad.stderr.contains("--challenge-types"))
    }
}
