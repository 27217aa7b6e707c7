import Foundation
import Testing
import MSAL
@testable import MSALCore
@testable import MSALCommand

/// `msal`'s exit codes for every kind of error the library reports, and for the tool's own errors.
@Suite("Command line exit codes")
struct CLIExitCodeTests {
    @Test func toolErrorsKeepTheirExitCode() {
        #expect(CLI.describe(CLIError(message: "No client id.")) == ("No client id.", CLIExit.failure))
        #expect(CLI.describe(CLIError(message: "line one\nline two", exitCode: 7)) == ("line one line two", 7))
    }

    @Test func interactionRequiredAsksToSignIn() {
        let (text, code) = CLI.describe(MSALErrorInfo.interactionRequired("No account is signed in."))
        #expect(code == CLIExit.interactionRequired)
        #expect(text == "No account is signed in. Sign in with `msal login`.")
    }

    @Test func everyUnfinishedSignInExitsWithFour() {
        var expired = MSALErrorInfo.internal(.internalErrorInvalidGrant, "The device code expired.")
        expired.oauthError = "code_expired"
        var declined = MSALErrorInfo(.internal, internalCode: .internalErrorAuthorizationFailed, description: "Declined.")
        declined.oauthError = "access_denied"
        let errors: [MSALErrorInfo] = [
            .cancelled("The device code sign-in", correlationId: UUID()),
            MSALErrorInfo(.userCanceled, description: "The user declined the device code sign-in."),
            // A platform user agent reports a cancelled session with the internal code only.
            .internal(.internalErrorSessionCanceled, "The sign-in session was cancelled."),
            expired,
            declined,
        ]
        for error in errors {
            #expect(CLI.describe(error).1 == CLIExit.signInNotCompleted, "\(error)")
        }
    }

    @Test func otherFailuresExitWithOneAndTheCorrelationId() {
        let id = UUID()
        let (text, code) = CLI.describe(MSALErrorInfo.transport(URLError(.timedOut), host: "login.example.com", correlationId: id))
        #expect(code == CLIExit.failure)
        #expect(text == "The identity provider (login.example.com) could not be reached: the request timed out. "
            + "[correlation id \(id.uuidString)]")
        #expect(CLI.describe(URLError(.badURL)).1 == CLIExit.failure)
    }
}
