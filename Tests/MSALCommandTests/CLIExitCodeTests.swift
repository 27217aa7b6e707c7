import Foundation
import Testing
import MSAL
@testable import MSALCore
@testable import MSALCommand
import MSALTestSupport

/// `msal`'s exit codes for every kind of error the library reports, and for the tool's own errors.
@Suite("Command line exit codes")
struct CLIExitCodeTests {
    @Test func toolErrorsKeepTheirExitCode() {
        #expect(CLI.describe(CLIError(message: "No client id.")) == ("No client id.", CLIExit.failure))
        #expect(CLI.describe(CLIError(message: "No client id.", exitCode: CLIExit.usage)) == ("No client id.", 64))
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
            + "[network: timed_out] No answer in time: check the host in --authority, the network and any proxy in "
            + "HTTPS_PROXY; --timeout SECONDS (or MSAL_TIMEOUT) waits longer. [correlation id \(id.uuidString)]")
        let named = CLI.describe(MSALErrorInfo.transport(URLError(.timedOut), host: "login.example.com", correlationId: nil), timeout: 30).0
        #expect(named.contains("No answer within 30 s"))
        #expect(CLI.describe(URLError(.badURL)).1 == CLIExit.failure)
    }
}

/// Usage errors that used to pass silently, `--version`, and logout with nobody signed in.
@Suite("msal usage")
struct CLIUsageTests {
    @Test func emptyScopesAndAPathTakenAsAScopeAreUsageErrorsThatSayWhatToType() async throws {
        let runner = try CommandRunner()
        let empty = try await runner.run(["token", "--client-id", "11111111-2222-3333-4444-555555555555", "--scopes", ""])
        #expect(empty.status == 64, "stderr: \(empty.stderr)")
        #expect(empty.stderr.contains("--scopes User.Read"))
        let path = try await runner.run(["graph", "--client-id", "11111111-2222-3333-4444-555555555555",
                                         "--scopes", "User.Read", "/me"])
        #expect(path.status == 64, "stderr: \(path.stderr)")
        #expect(path.stderr.contains("msal graph /me --scopes User.Read"))
    }

    @Test func versionIsPrinted() async throws {
        let runner = try CommandRunner()
        let version = try await runner.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.contains("MSAL for Swift") && version.stdout.contains(MSALPublicClientApplication.sdkVersion ?? "?"))
    }

    @Test func logoutWithNobodySignedInIsNotAnError() async throws {
        let runner = try CommandRunner()
        let cache = runner.home.appendingPathComponent("empty-cache.json").path
        let logout = try await runner.run(["logout", "--client-id", "11111111-2222-3333-4444-555555555555", "--cache", cache])
        #expect(logout.status == 0, "stderr: \(logout.stderr)")
        #expect(logout.stdout.contains("nothing to sign out"))
        #expect(!logout.stderr.contains("msal login"))
    }
}
