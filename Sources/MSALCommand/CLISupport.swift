import ArgumentParser
import Foundation
import Logging
import MSAL
import MSALCommandSupport

/// Exit codes of `msal` (also listed in `msal --help`).
enum CLIExit {
    /// Any failure.
    static let failure: Int32 = 1
    /// A token needs the user: no account, or the refresh token no longer works. Run `msal login`.
    static let interactionRequired: Int32 = 3
    /// The user cancelled or declined the sign-in, or the device code expired.
    static let signInNotCompleted: Int32 = 4
    /// A service the command needs is not there: `--broker` with no identity broker answering (`EX_UNAVAILABLE`).
    static let unavailable: Int32 = 69
    /// A usage error: an option missing or malformed (`EX_USAGE`, as ArgumentParser's own usage errors).
    static let usage: Int32 = 64

    /// OAuth errors that mean the sign-in was not completed: the user declined (`access_denied` on the
    /// authorization redirect, `authorization_declined` in the device code flow), or the device code ran out.
    static let notCompletedOAuthErrors: Set<String> = ["access_denied", "authorization_declined", "expired_token",
                                                       "code_expired"]

    /// The exit code for an MSAL error.
    static func code(for error: MSALErrorInfo) -> Int32 {
        if error.code == .interactionRequired { return interactionRequired }
        if error.code == .userCanceled || error.internalCode == .internalErrorSessionCanceled { return signInNotCompleted }
        if let oauth = error.oauthError, notCompletedOAuthErrors.contains(oauth) { return signInNotCompleted }
        return failure
    }
}

/// An error of the tool itself, reported as one line.
struct CLIError: Error {
    var message: String
    var exitCode: Int32 = CLIExit.failure
}

/// An error met while signing in one way (``SignInFlow``): the advice for a refusal depends on the way.
struct SignInFailure: Error {
    var flow: SignInFlow
    var error: any Error
}

/// What the advice for an error depends on besides the error.
struct ErrorContext {
    /// The command that signs in again with the same settings.
    var loginCommand = "msal login"
    /// The per-request timeout in use.
    var timeout: TimeInterval?
    /// The way the token was being obtained.
    var flow: SignInFlow = .silent
    /// The CA file in use, and where it was named.
    var caFile: (path: String, source: CAFileSource)?
}

/// Output, logging and error reporting shared by the commands. Results go to stdout; everything else to stderr.
enum CLI {
    /// Sends swift-log (MSAL's diagnostics) to stderr, quiet unless `verbose` or `debug` (which adds the redacted
    /// HTTP trace).
    static func setUpLogging(verbose: Bool, debug: Bool = false) {
        TerminalLogging.setUp(verbose: verbose, debug: debug)
    }

    /// Writes a line to stdout, with control characters made visible (``TerminalText/safe(_:)``).
    static func out(_ text: String) {
        TerminalOutput.out(text)
    }

    /// Writes a line to stderr, with control characters made visible (``TerminalText/safe(_:)``).
    static func err(_ text: String) {
        TerminalOutput.err(text)
    }

    /// Compact JSON (one line).
    static func jsonLine(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
    }

    /// A response body as pretty-printed JSON, or as text when it is not JSON.
    static func prettyBody(_ body: Data) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: body) else { return String(decoding: body, as: UTF8.self) }
        return prettyJSON(object)
    }

    /// Pretty JSON.
    static func prettyJSON(_ object: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted]) else { return "{}" }
        return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
    }

    /// Runs a command body: any error becomes one line on stderr and a non-zero exit code, never a stack trace.
    static func run(_ options: CommonOptions, _ body: () async throws -> Void) async throws {
        setUpLogging(verbose: options.wantsVerbose, debug: options.wantsDebug)
        // A terminal user waits for each answer --timeout seconds (30 by default), not the library's 300.
        MSALGlobalConfig.httpConfig.timeoutIntervalForRequest = options.resolvedTimeout
        do {
            try await body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            var context = ErrorContext(loginCommand: loginCommand(options), timeout: options.resolvedTimeout)
            if let path = options.resolvedCAFile, let source = options.caFileSource { context.caFile = (path, source) }
            let (message, code) = describe(error, context: context)
            err("msal: error: " + message)
            throw ExitCode(code)
        }
    }

    /// The exact command that signs in again with the same settings: `msal login`, with the scopes, profile and
    /// account that were given (`msal login --scopes Mail.Read`).
    static func loginCommand(_ options: CommonOptions) -> String {
        var words = ["msal", "login"]
        if let profile = options.profile { words += ["--profile", profile] }
        if let scopes = options.explicitScopes, scopes != ["User.Read"] { words += ["--scopes", scopes.joined(separator: ",")] }
        if let account = options.account { words += ["--account", account] }
        return words.joined(separator: " ")
    }

    /// One line for an error, and the exit code it maps to.
    static func describe(_ error: any Error, loginCommand: String = "msal login", timeout: TimeInterval? = nil) -> (String, Int32) {
        describe(error, context: ErrorContext(loginCommand: loginCommand, timeout: timeout))
    }

    /// One line for an error met in `context`, and the exit code it maps to.
    static func describe(_ error: any Error, context: ErrorContext) -> (String, Int32) {
        if let failure = error as? SignInFailure {
            var context = context
            context.flow = failure.flow
            return describe(failure.error, context: context)
        }
        if let error = error as? CLIError { return (oneLine(error.message), error.exitCode) }
        guard let error = error as? MSALErrorInfo else {
            return (oneLine((error as NSError).localizedDescription), CLIExit.failure)
        }
        // The tool's own transport failed (a recorded CA file that is gone): its message says it all.
        if let own = error.underlyingError as? CLIError { return (oneLine(own.message), own.exitCode) }
        let codes = (error.stsErrorCodes ?? []) + RefusalAdvice.precedence.filter { error.errorDescription.contains("AADSTS\($0):") }
        if let advice = RefusalAdvice.advice(codes: codes, flow: context.flow, login: context.loginCommand) {
            var text = advice.text
            if advice.exitCode != CLIExit.interactionRequired, let id = error.correlationId {
                text += " [correlation id \(id.uuidString)]"
            }
            return (text, advice.exitCode)
        }
        var text = oneLine(error.errorDescription)
        if let oauth = error.oauthError { text += " (\(oauth))" }
        if let hint = NetworkErrorHint.text(for: error, timeout: context.timeout, caFile: context.caFile) { text += " " + hint }
        if error.errorDescription.contains("AADSTS65002") || (error.stsErrorCodes ?? []).contains("65002") {
            text += " This client is one of Microsoft's own and is granted only what it is preauthorized for: ask for "
                + "{resource}/.default (as in --scopes https://graph.microsoft.com/.default), or pass --client-id for your "
                + "own app registration."
        }
        let code = CLIExit.code(for: error)
        switch code {
        case CLIExit.interactionRequired: text += " Sign in with `\(context.loginCommand)`."
        case CLIExit.signInNotCompleted: break
        default:
            if let correlationId = error.correlationId { text += " [correlation id \(correlationId.uuidString)]" }
        }
        return (text, code)
    }

    static func oneLine(_ text: String) -> String {
        TerminalOutput.oneLine(text)
    }
}
