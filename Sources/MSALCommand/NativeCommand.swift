import ArgumentParser
import Foundation
import MSAL
import MSALCommandSupport

/// `msal native`: native authentication for a Microsoft Entra External ID app, at the terminal: sign in, sign up,
/// reset a password, with one-time passcodes and passwords typed at the prompt (passwords never echoed), no
/// browser; the browser sign-in (`msal login`'s) when the tenant requires it.
struct NativeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "native",
        abstract: "Sign in, sign up or reset a password for an External ID app, at the terminal (no browser).",
        discussion: """
        For apps of a Microsoft Entra External ID tenant with native authentication enabled. The authority is \
        https://<tenant>.ciamlogin.com (--tenant-subdomain <tenant>) or --authority. Codes sent by email and \
        passwords are typed at the prompt; passwords are never echoed. An empty code asks for a new one. A second \
        factor (a method picked from a list, then its code) or registering an email address for codes is asked for \
        at the prompt when the tenant requires it. When the tenant needs what the terminal cannot do, the browser \
        sign-in of `msal login` takes over.

        Examples:
          msal native sign-in --tenant-subdomain contoso --client-id 11111111-2222-3333-4444-555555555555
          msal native sign-up --username ada@example.org --attribute displayName="Ada Lovelace"
          msal native reset-password --username ada@example.org
        """,
        subcommands: [NativeSignInCommand.self, NativeSignUpCommand.self, NativeResetPasswordCommand.self]
    )
}

/// The options of the native commands besides the common ones.
struct NativeOptions: ParsableArguments {
    @Option(name: .customLong("tenant-subdomain"), help: "The External ID tenant (contoso for contoso.onmicrosoft.com).")
    var tenantSubdomain: String?

    @Option(name: .customLong("username"), help: "The user's email address (asked for when absent).")
    var username: String?

    @Option(name: .customLong("challenge-types"),
            help: "What the terminal offers: oob (emailed codes), password, or both, comma-separated (default: both).")
    var challengeTypes: String?

    func validate() throws {
        _ = try resolvedChallengeTypes()
    }

    func resolvedChallengeTypes() throws -> MSALNativeAuthChallengeTypes {
        guard let challengeTypes else { return [.OOB, .password] }
        var types: MSALNativeAuthChallengeTypes = []
        for name in challengeTypes.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            switch name {
            case "oob": types.insert(.OOB)
            case "password": types.insert(.password)
            default: throw ValidationError("--challenge-types takes oob and password, not \(name).")
            }
        }
        guard !types.isEmpty else { throw ValidationError("--challenge-types needs oob, password or both.") }
        return types
    }
}

/// What the native commands share: the application, the prompts, the end of a flow.
struct NativeSession {
    let options: CommonOptions
    let native: NativeOptions
    let factory: ApplicationFactory
    let application: MSALNativeAuthPublicClientApplication
    /// The accounts signed in before this command: native authentication keeps one account per app, so a sign-in
    /// as someone else signs them out (and the tool says so).
    let previousAccounts: [MSALAccount]
    /// How many wrong codes or passwords a prompt takes before giving up.
    static let attempts = 3

    init(options: CommonOptions, native: NativeOptions) throws {
        self.options = options
        self.native = native
        factory = ApplicationFactory(options: options)
        guard let clientId = options.resolvedClientId else {
            throw CLIError(message: "No client id: pass --client-id ID or set MSAL_CLIENT_ID.", exitCode: CLIExit.usage)
        }
        let configuration: MSALNativeAuthPublicClientApplicationConfig
        if let subdomain = native.tenantSubdomain {
            configuration = try MSALNativeAuthPublicClientApplicationConfig(clientId: clientId, tenantSubdomain: subdomain,
                                                                            challengeTypes: native.resolvedChallengeTypes())
        } else {
            guard let url = URL(string: options.resolvedAuthority), url.host != nil else {
                throw CLIError(message: "The authority \"\(options.resolvedAuthority)\" is not a URL.")
            }
            configuration = MSALNativeAuthPublicClientApplicationConfig(clientId: clientId, authority: try MSALCIAMAuthority(url: url),
                                                                        challengeTypes: try native.resolvedChallengeTypes())
        }
        // The terminal can run a second factor and register a strong method, so it declares both.
        configuration.capabilities = [.mfaRequired, .registrationRequired]
        configuration.redirectUri = options.resolvedRedirectUri
        configuration.httpClient = try factory.makeHTTPClient()
        configuration.cacheConfig.storage = factory.cache.storage
        application = try MSALNativeAuthPublicClientApplication(nativeAuthConfiguration: configuration)
        previousAccounts = (try? application.allAccounts()) ?? []
    }

    /// `--username`, else asked for.
    func username() throws -> String {
        if let username = native.username { return username }
        guard let typed = TerminalPrompt.ask("Email: ")?.trimmingCharacters(in: .whitespaces), !typed.isEmpty else {
            throw CLIError(message: "No username was given.")
        }
        return typed
    }

    /// A code typed at the prompt: trimmed; empty asks for a new code.
    static func code(sentTo: String) throws -> String {
        guard let typed = TerminalPrompt.ask("Code sent to \(TerminalText.inline(sentTo)) (Enter alone sends a new one): ") else {
            throw CLIError(message: "No code was entered.")
        }
        return typed.trimmingCharacters(in: .whitespaces)
    }

    /// Asks for the code until the service takes it: an empty answer sends a new one; after ``attempts`` wrong codes
    /// the error ends the command. The same loop for sign-in, sign-up and password reset.
    static func enterCode<State: Sendable, Done>(_ first: MSALNativeAuthCodeRequired<State>,
                                                 submit: (State, String) async throws -> Done,
                                                 resend: (State) async throws -> MSALNativeAuthCodeRequired<State>,
                                                 isWrongCode: (any Error) -> Bool = { ($0 as? VerifyCodeError)?.isInvalidCode == true })
        async throws -> Done {
        var state = first.newState
        var sentTo = first.sentTo
        var wrong = 0
        while true {
            let typed = try code(sentTo: sentTo)
            if typed.isEmpty {
                let again = try await resend(state)
                (state, sentTo) = (again.newState, again.sentTo)
                continue
            }
            do {
                return try await submit(state, typed)
            } catch {
                guard isWrongCode(error), wrong + 1 < attempts else { throw error }
                wrong += 1
                CLI.err("That code is not right.")
            }
        }
    }

    /// A password typed with echo off.
    static func password(_ question: String = "Password: ") throws -> String {
        guard let typed = TerminalPrompt.askSecret(question), !typed.isEmpty else {
            throw CLIError(message: "No password was entered.")
        }
        return typed
    }

    /// Records the signed-in account as the active one and says so.
    func signedIn(_ account: MSALAccount, _ what: String) throws {
        try factory.activate(account)
        let name = account.username ?? account.identifier ?? "(unknown)"
        let replaced = previousAccounts.filter { $0.identifier != account.identifier }
        for previous in replaced { if let id = previous.identifier { try? factory.forgetRecord(of: id) } }
        let replacedNames = replaced.map { $0.username ?? $0.identifier ?? "(unknown)" }
        if options.wantsJSON {
            var object: [String: Any] = ["username": name, "home_account_id": account.identifier ?? ""]
            if !replacedNames.isEmpty { object["signed_out"] = replacedNames }
            CLI.out(CLI.jsonLine(object))
        } else {
            CLI.out("\(what) \(name).")
            if !replacedNames.isEmpty {
                CLI.err("Signed out \(replacedNames.map(TerminalText.inline).joined(separator: ", ")): native authentication "
                        + "keeps one account per app.")
            }
        }
    }

    /// The error of a native step: the browser sign-in when the tenant requires it, else the service's reason.
    func failed(_ error: MSALNativeAuthError) async throws -> Never {
        guard error.isBrowserRequired else {
            throw CLIError(message: error.errorDescription ?? "The request failed.")
        }
        CLI.err("The tenant requires a browser sign-in for this account; continuing with `msal login`.")
        let result = try await LoginCommand.ladderSignIn(application, options: options)
        try signedIn(result.account, "Signed in as")
        throw ExitCode.success
    }
}

/// `msal native sign-in`.
struct NativeSignInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sign-in", abstract: "Sign in with an emailed code or a password.")

    @OptionGroup var options: CommonOptions
    @OptionGroup var native: NativeOptions

    func run() async throws {
        try await CLI.run(options) {
            let session = try NativeSession(options: options, native: native)
            let parameters = MSALNativeAuthSignInParameters(username: try session.username())
            parameters.scopes = options.resolvedScopes
            do {
                let result: MSALNativeAuthUserAccountResult
                switch try await session.application.signIn(parameters: parameters) {
                case .completed(let done): result = done
                case .codeRequired(let sent): result = try await NativeSession.finish(try await Self.enterCode(sent))
                case .passwordRequired(let state): result = try await NativeSession.finish(try await Self.enterPassword(state))
                case .awaitingMFA(let methods, let state): result = try await NativeSession.secondFactor(methods, state)
                case .strongAuthMethodRegistration(let methods, let state): result = try await NativeSession.register(methods, state)
                }
                try session.signedIn(result.account, "Signed in as")
            } catch let error as MSALNativeAuthError {
                try await session.failed(error)
            }
        }
    }

    static func enterCode(_ sent: MSALNativeAuthCodeRequired<SignInCodeRequiredState>) async throws -> SignInOutcome {
        try await NativeSession.enterCode(sent, submit: { try await $0.submitCode(code: $1) }, resend: { try await $0.resendCode() })
    }

    static func enterPassword(_ state: SignInPasswordRequiredState) async throws -> SignInOutcome {
        var wrong = 0
        while true {
            do {
                return try await state.submitPassword(password: try NativeSession.password())
            } catch let error as PasswordRequiredError {
                guard error.isInvalidPassword, wrong + 1 < NativeSession.attempts else { throw error }
                wrong += 1
                CLI.err("The password is not right.")
            }
        }
    }
}

/// `msal native sign-up`.
struct NativeSignUpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-up", abstract: "Create an account: email code, then the password and attributes the tenant asks for.")

    @OptionGroup var options: CommonOptions
    @OptionGroup var native: NativeOptions

    @Option(name: .customLong("attribute"), help: "An attribute of the new user, name=value (repeatable).")
    var attributes: [String] = []

    func validate() throws {
        for attribute in attributes where !attribute.contains("=") || attribute.hasPrefix("=") {
            throw ValidationError("--attribute takes name=value: \(attribute)")
        }
    }

    func run() async throws {
        try await CLI.run(options) {
            let session = try NativeSession(options: options, native: native)
            let parameters = MSALNativeAuthSignUpParameters(username: try session.username())
            var given: [String: any Sendable] = [:]
            for attribute in attributes {
                let parts = attribute.split(separator: "=", maxSplits: 1).map(String.init)
                given[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            if !given.isEmpty { parameters.attributes = given }
            do {
                let sent: MSALNativeAuthCodeRequired<SignUpCodeRequiredState>
                switch try await session.application.signUp(parameters: parameters) {
                case .codeRequired(let code): sent = code
                case .attributesInvalid(let names):
                    throw CLIError(message: "The tenant did not accept these attributes: \(names.map(TerminalText.inline).joined(separator: ", ")).")
                }
                var next = try await Self.enterCode(sent)
                var wrong = 0
                while true {
                    switch next {
                    case .completed(let state):
                        let signIn = MSALNativeAuthSignInAfterSignUpParameters()
                        signIn.scopes = options.resolvedScopes
                        let result = try await NativeSession.finish(try await state.signIn(parameters: signIn))
                        try session.signedIn(result.account, "Signed up and signed in as")
                        return
                    case .passwordRequired(let state):
                        do {
                            next = try await state.submitPassword(password: try NativeSession.password("New password: "))
                        } catch let error as PasswordRequiredError {
                            guard error.isInvalidPassword, wrong + 1 < NativeSession.attempts else { throw error }
                            wrong += 1
                            CLI.err("The tenant does not accept this password: \(error.errorDescription ?? "").")
                        }
                    case .attributesRequired(let required, let state):
                        next = try await state.submitAttributes(attributes: try Self.ask(required.map(\.name)))
                    case .attributesInvalid(let names, let state):
                        CLI.err("The tenant did not accept: \(names.map(TerminalText.inline).joined(separator: ", ")).")
                        wrong += 1
                        guard wrong < NativeSession.attempts else { throw CLIError(message: "The attributes were not accepted.") }
                        next = try await state.submitAttributes(attributes: try Self.ask(names))
                    }
                }
            } catch let error as MSALNativeAuthError {
                try await session.failed(error)
            }
        }
    }

    /// Asks for each attribute by name.
    static func ask(_ names: [String]) throws -> [String: any Sendable] {
        var values: [String: any Sendable] = [:]
        for name in names {
            guard let value = TerminalPrompt.ask("\(TerminalText.inline(name)): ") else {
                throw CLIError(message: "No value was entered for \(TerminalText.inline(name)).")
            }
            values[name] = value.trimmingCharacters(in: .whitespaces)
        }
        return values
    }

    static func enterCode(_ sent: MSALNativeAuthCodeRequired<SignUpCodeRequiredState>) async throws -> SignUpContinueOutcome {
        try await NativeSession.enterCode(sent, submit: { try await $0.submitCode(code: $1) }, resend: { try await $0.resendCode() })
    }
}

/// `msal native reset-password`.
struct NativeResetPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password", abstract: "Reset a forgotten password with an emailed code, then sign in.")

    @OptionGroup var options: CommonOptions
    @OptionGroup var native: NativeOptions

    func run() async throws {
        try await CLI.run(options) {
            let session = try NativeSession(options: options, native: native)
            do {
                let sent = try await session.application.resetPassword(parameters: MSALNativeAuthResetPasswordParameters(username: try session.username()))
                let passwordState = try await NativeSession.enterCode(sent, submit: { try await $0.submitCode(code: $1) },
                                                                      resend: { try await $0.resendCode() })
                var wrong = 0
                while true {
                    do {
                        let done = try await passwordState.submitPassword(password: try NativeSession.password("New password: "))
                        let signIn = MSALNativeAuthSignInAfterResetPasswordParameters()
                        signIn.scopes = options.resolvedScopes
                        let result = try await NativeSession.finish(try await done.signIn(parameters: signIn))
                        try session.signedIn(result.account, "Password reset; signed in as")
                        return
                    } catch let error as PasswordRequiredError {
                        guard error.isInvalidPassword, wrong + 1 < NativeSession.attempts else { throw error }
                        wrong += 1
                        CLI.err("The tenant does not accept this password: \(error.errorDescription ?? "").")
                    }
                }
            } catch let error as MSALNativeAuthError {
                try await session.failed(error)
            }
        }
    }
}
