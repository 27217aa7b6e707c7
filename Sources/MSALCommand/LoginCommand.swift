import ArgumentParser
import Foundation
import MSAL
import MSALTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `msal login`: interactive sign-in in the system browser, or the device code flow.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in: in the system browser, or with a device code (--device-code).",
        discussion: """
        The browser sign-in redirects to a loopback address (http://localhost on a free port). With --device-code \
        the instructions and a countdown go to stderr (with --json, one JSON line with user_code, verification_uri, \
        message and expires_in instead); open the page on any device and enter the code. The signed-in account is \
        printed on stdout; tokens are stored in the cache, never printed.

        Examples:
          msal login --client-id 11111111-2222-3333-4444-555555555555
          msal login --device-code --scopes User.Read,Mail.Read
        """
    )

    @OptionGroup var options: CommonOptions

    @Flag(name: .customLong("device-code"), help: "Use the device code flow instead of the browser.")
    var deviceCode = false

    @Flag(name: .customLong("emulator-auto-approve"),
          help: ArgumentHelp("Emulator only: take the auto-approved answer of an emulator started with --auto-approve instead of opening a browser.", visibility: .hidden))
    var emulatorAutoApprove = false

    func run() async throws {
        try await CLI.run(options) {
            let factory = ApplicationFactory(options: options)
            let httpClient = try factory.makeHTTPClient()
            let application = try factory.makeApplication(httpClient: httpClient)
            let result = deviceCode ? try await deviceCodeSignIn(application)
                : try await browserSignIn(application, httpClient: httpClient)
            if options.wantsJSON {
                CLI.out(CLI.jsonLine(Describe.signIn(result)))
            } else {
                CLI.out("Signed in as \(result.account.username ?? result.account.identifier ?? "(unknown)").")
            }
        }
    }

    private func browserSignIn(_ application: MSALPublicClientApplication, httpClient: (any MSALHTTPClient)?) async throws -> MSALResult {
        let webview = MSALWebviewParameters()
        if emulatorAutoApprove { webview.webAuthenticator = EmulatorAutoApproveAuthenticator(httpClient: httpClient ?? MSALDefaultHTTPClient.shared) }
        let parameters = MSALInteractiveTokenParameters(scopes: options.resolvedScopes, webviewParameters: webview)
        parameters.promptType = .selectAccount
        if let hint = options.resolvedAccount, hint.contains("@") { parameters.loginHint = hint }
        if !options.wantsJSON && !emulatorAutoApprove { CLI.err("Opening the browser to sign in...") }
        return try await application.acquireToken(with: parameters)
    }

    private func deviceCodeSignIn(_ application: MSALPublicClientApplication) async throws -> MSALResult {
        let json = options.wantsJSON
        let countdown = Countdown()
        defer { countdown.stop() }
        let parameters = MSALDeviceCodeParameters(scopes: options.resolvedScopes)
        return try await application.acquireTokenWithDeviceCode(with: parameters) { code in
            if json {
                CLI.err(CLI.jsonLine(["user_code": code.userCode, "verification_uri": code.verificationURI.absoluteString,
                                      "message": code.message, "expires_in": ExternalNumber.clampedInteger(code.expiresIn)]))
            } else {
                CLI.err(code.message)
                countdown.start(until: code.expiresOn)
            }
        }
    }
}

/// A live "expires in mm:ss" line on stderr while the device code flow waits (only when stderr is a terminal).
final class Countdown: Sendable {
    private let running = LockedBox<Task<Void, Never>?>(nil)

    func start(until expiresOn: Date) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        let task = Task.detached {
            while !Task.isCancelled {
                let remaining = max(0, ExternalNumber.clampedInteger(expiresOn.timeIntervalSinceNow))
                let text = String(format: "\rWaiting for sign-in; the code expires in %d:%02d ", remaining / 60, remaining % 60)
                FileHandle.standardError.write(Data(text.utf8))
                if remaining == 0 { break }
                try? await Task.sleep(nanoseconds: 1_000_000_000)
            }
        }
        running.set(task)
    }

    func stop() {
        let task = running.withLock { task -> Task<Void, Never>? in
            let current = task
            task = nil
            return current
        }
        if let task {
            task.cancel()
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }
}
