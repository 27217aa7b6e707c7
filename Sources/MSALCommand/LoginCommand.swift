import ArgumentParser
import Foundation
import MSAL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `msal login`: interactive sign-in in a browser (here or on any machine, with the redirect pasted back), or the
/// device code flow; chosen by ``MSALSignInLadder`` unless a flag says which.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in: in a browser, on any machine with the address pasted back, or with a device code.",
        discussion: """
        Where a browser can show (a desktop session, WSL, macOS, or $BROWSER set), it opens; the URL is printed too. \
        With no display (SSH, a container) the URL is printed for a browser on any machine: the browser ends on an \
        http://localhost address that may not load there; paste that address back here and press Enter (a port \
        forwarded with `ssh -L` or an editor also works: the listener keeps waiting). With no display and no \
        terminal, the device code flow is used. --browser, --no-browser and --device-code choose explicitly.

        With --device-code the instructions and a countdown go to stderr (with --json, one JSON line with \
        user_code, verification_uri, message and expires_in instead). The signed-in account is printed on stdout \
        and becomes the active account; tokens are stored in the cache, never printed.

        Examples:
          msal login --client-id 11111111-2222-3333-4444-555555555555
          ssh server msal login --no-browser
          msal login --device-code --scopes User.Read,Mail.Read
        """
    )

    @OptionGroup var options: CommonOptions

    @Flag(name: .customLong("browser"), help: "Open a browser on this machine.")
    var browser = false

    @Flag(name: .customLong("no-browser"),
          help: "Print the URL only; paste back the address the browser ends on (or forward the port).")
    var noBrowser = false

    @Flag(name: .customLong("device-code"), help: "Use the device code flow instead of the browser.")
    var deviceCode = false

    @Flag(name: .customLong("emulator-auto-approve"),
          help: ArgumentHelp("Emulator only: take the auto-approved answer of an emulator started with --auto-approve instead of opening a browser.", visibility: .hidden))
    var emulatorAutoApprove = false

    func validate() throws {
        if [browser, noBrowser, deviceCode, emulatorAutoApprove].filter({ $0 }).count > 1 {
            throw ValidationError("--browser, --no-browser and --device-code exclude each other: give one of them.")
        }
    }

    var request: MSALSignInLadder.Request {
        browser ? .browser : noBrowser ? .noBrowser : deviceCode ? .deviceCode : .automatic
    }

    func run() async throws {
        try await CLI.run(options) {
            var factory = ApplicationFactory(options: options)
            if factory.usesBroker { factory.usesBroker = try await Self.brokerAnswers(options: options) }
            let httpClient = try factory.makeHTTPClient()
            let application = try factory.makeApplication(httpClient: httpClient)
            // The cache must be usable before the user signs in (a refused cache path fails here, not after).
            _ = try application.allAccounts()
            let step = MSALSignInLadder.step(for: request, in: .current())
            if options.usesDefaultClient, options.resolvedClientId == nil, options.recordedSignIn == nil, !options.wantsJSON {
                CLI.err("No client id given: signing in with Microsoft's public client \(ToolDefaults.publicClientId) (the "
                        + "Azure CLI's), for \(options.resolvedScopes.joined(separator: " ")). Pass --client-id for your own app.")
            }
            let flow: SignInFlow = factory.usesBroker ? .broker : emulatorAutoApprove ? .browser
                : step.method == .deviceCode ? .deviceCode : step.method == .browser ? .browser : .pasteBack
            let result: MSALResult
            do {
                if emulatorAutoApprove {
                    result = try await autoApprovedSignIn(application, httpClient: httpClient)
                } else if flow == .deviceCode {
                    if request == .automatic { CLI.err("No browser can show here (\(step.reason)).") }
                    result = try await Self.deviceCodeSignIn(application, options: options)
                } else {
                    result = try await Self.browserSignIn(application, step: step, options: options)
                }
            } catch {
                throw SignInFailure(flow: flow, error: error)
            }
            if let failure = result.metadata.cacheWriteFailure {
                throw CLIError(message: "Signed in as \(result.account.username ?? "(unknown)"), but the sign-in could not "
                               + "be saved to the token cache: \(failure)")
            }
            try factory.activate(result.account)
            try factory.record(result.account, throughBroker: result.metadata.tokenSource == .broker)
            if options.wantsJSON {
                CLI.out(CLI.jsonLine(Describe.signIn(result)))
            } else {
                let through = result.metadata.tokenSource == .broker ? " through the identity broker" : ""
                CLI.out("Signed in as \(result.account.username ?? result.account.identifier ?? "(unknown)")\(through).")
                let protection = factory.cache.protectionSummary
                CLI.err("The sign-in is in \(protection.location) (\(protection.tier), "
                        + "\(protection.encrypted ? "encrypted" : "not encrypted")): \(protection.lifetime).")
            }
        }
    }

    /// Whether the device's identity broker answers, asked before a sign-in that is to use it. When `--broker` was
    /// given and none answers, the sign-in fails at once (exit 69) with why and what to do; when the broker was
    /// asked for by MSAL_BROKER, the profile or the sign-in record, the sign-in goes on without it, saying so first.
    static func brokerAnswers(options: CommonOptions) async throws -> Bool {
        guard let reason = await BrokerStatus.unavailability() else { return true }
        if options.broker {
            throw CLIError(message: "--broker: no identity broker answers (\(reason)). Install and start the Microsoft identity "
                           + "broker (Intune enrollment does), or on a machine without one sign in without --broker: "
                           + CLI.loginCommand(options), exitCode: CLIExit.unavailable)
        }
        CLI.err("No identity broker answers (\(reason)); the broker was asked for by \(options.brokerSource), so signing in "
                + "without it.")
        return false
    }

    /// The sign-in the ladder chooses here (browser, pasted redirect, or device code), without a flag choosing:
    /// also the fallback of `msal native` when the tenant requires a browser.
    static func ladderSignIn(_ application: MSALPublicClientApplication, options: CommonOptions) async throws -> MSALResult {
        let step = MSALSignInLadder.step(for: .automatic, in: .current())
        if step.method == .deviceCode {
            CLI.err("No browser can show here (\(step.reason)).")
            return try await deviceCodeSignIn(application, options: options)
        }
        return try await browserSignIn(application, step: step, options: options)
    }

    private func parameters(_ webview: MSALWebviewParameters) -> MSALInteractiveTokenParameters {
        Self.parameters(webview, options: options)
    }

    private static func parameters(_ webview: MSALWebviewParameters, options: CommonOptions) -> MSALInteractiveTokenParameters {
        let parameters = MSALInteractiveTokenParameters(scopes: options.resolvedScopes, webviewParameters: webview)
        parameters.promptType = .selectAccount
        if let hint = options.resolvedAccount, hint.contains("@") { parameters.loginHint = hint }
        return parameters
    }

    private static func browserSignIn(_ application: MSALPublicClientApplication, step: MSALSignInLadder.Step,
                                      options: CommonOptions) async throws -> MSALResult {
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = MSALSystemBrowserWebAuthenticator(
            opensBrowser: step.method == .browser,
            pastedRedirects: step.acceptsPastedRedirect ? MSALStandardInputRedirectSource() : nil,
            output: { message in message.split(separator: "\n").forEach { CLI.err(String($0)) } })
        return try await application.acquireToken(with: parameters(webview, options: options))
    }

    private func autoApprovedSignIn(_ application: MSALPublicClientApplication, httpClient: (any MSALHTTPClient)?) async throws -> MSALResult {
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator(httpClient: httpClient ?? MSALDefaultHTTPClient.shared)
        return try await application.acquireToken(with: parameters(webview))
    }

    private static func deviceCodeSignIn(_ application: MSALPublicClientApplication, options: CommonOptions) async throws -> MSALResult {
        let json = options.wantsJSON
        let countdown = Countdown()
        defer { countdown.stop() }
        let parameters = MSALDeviceCodeParameters(scopes: options.resolvedScopes)
        // Two steps: show the code, then await the result (the first poll goes out at once).
        let flow = try await application.startDeviceCodeFlow(with: parameters)
        let code = flow.deviceCode
        if json {
            CLI.err(CLI.jsonLine(["user_code": code.userCode, "verification_uri": code.verificationURI.absoluteString,
                                  "message": code.message, "expires_in": ExternalNumber.clampedInteger(code.expiresIn)]))
        } else {
            CLI.err(code.message)
            if !countdown.start(until: code.expiresOn) {
                // No terminal for a countdown: say once how long the wait lasts.
                let minutes = max(1, (ExternalNumber.clampedInteger(code.expiresIn) + 59) / 60)
                let host = URL(string: options.resolvedAuthority)?.host?.lowercased() ?? ""
                let emulator = ToolDefaults.isLoopback(host)
                    ? " An emulator started with --auto-approve <user> approves it at once." : ""
                CLI.err("Waiting up to \(minutes) min for the code to be entered (Ctrl-C stops).\(emulator)")
            }
        }
        return try await flow.result()
    }
}

/// A live "expires in mm:ss" line on stderr while the device code flow waits (only when stderr is a terminal).
final class Countdown: Sendable {
    private let running = LockedBox<Task<Void, Never>?>(nil)

    /// Starts the line; false when stderr is not a terminal (no line shown).
    @discardableResult
    func start(until expiresOn: Date) -> Bool {
        guard isatty(STDERR_FILENO) == 1 else { return false }
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
        return true
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
