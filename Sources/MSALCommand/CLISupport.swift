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
            let (message, code) = describe(error, loginCommand: loginCommand(options), timeout: options.resolvedTimeout)
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
    static func describe(_ error: any Error, loginCommand: String = "msal login",
                         timeout: TimeInterval? = nil) -> (String, Int32) {
        if let error = error as? CLIError { return (oneLine(error.message), error.exitCode) }
        if let error = error as? MSALErrorInfo {
            var text = oneLine(error.errorDescription)
            if let oauth = error.oauthError { text += " (\(oauth))" }
            if let hint = NetworkErrorHint.text(for: error, timeout: timeout) { text += " " + hint }
            if error.errorDescription.contains("AADSTS65002") || (error.stsErrorCodes ?? []).contains("65002") {
                text += " This client is one of Microsoft's own and is granted only what it is preauthorized for: ask for "
                    + "{resource}/.default (as in --scopes https://graph.microsoft.com/.default), or pass --client-id for your "
                    + "own app registration."
            }
            // A device or token-protection policy: only a sign-in through the device's identity broker passes it.
            let needsBroker = !(error.stsErrorCodes ?? []).filter(["53000", "53001", "53003", "530084"].contains).isEmpty
            let code = CLIExit.code(for: error)
            switch code {
            case CLIExit.interactionRequired where needsBroker:
                text += " Sign in with `\(loginCommand) --broker` on a device registered with Microsoft Entra (Intune "
                    + "enrollment installs the Microsoft identity broker)."
            case CLIExit.interactionRequired: text += " Sign in with `\(loginCommand)`."
            case CLIExit.signInNotCompleted: break
            default:
                if let correlationId = error.correlationId { text += " [correlation id \(correlationId.uuidString)]" }
            }
            return (text, code)
        }
        let ns = error as NSError
        return (oneLine(ns.localizedDescription), CLIExit.failure)
    }

    static func oneLine(_ text: String) -> String {
        TerminalOutput.oneLine(text)
    }
}
