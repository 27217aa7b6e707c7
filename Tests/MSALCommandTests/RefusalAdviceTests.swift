import Foundation
import Testing
@testable import MSALCore
@testable import MSALCommand

/// Every policy refusal × every flow has one next step that works there, and the exit code `msal --help` documents
/// for it: 3 when the next step is a sign-in, 1 when the device or an administrator must change something.
@Suite("Refusal advice")
struct RefusalAdviceTests {
    static let login = "msal login --scopes Mail.Read"

    @Test("Each code in each flow: one next step, and the documented exit code", arguments: RefusalAdvice.precedence)
    func everyCodeInEveryFlow(code: String) throws {
        for flow in SignInFlow.allCases {
            let advice = try #require(RefusalAdvice.advice(codes: [code], flow: flow, login: Self.login), "\(code) \(flow)")
            #expect(advice.text.hasPrefix("Entra refused the token (AADSTS\(code): "), "\(code) \(flow)")
            #expect(advice.exitCode == CLIExit.interactionRequired || advice.exitCode == CLIExit.failure)
            // A sign-in advice names the exact command; an administrator's names no sign-in.
            #expect(advice.text.contains(Self.login) == (advice.exitCode == CLIExit.interactionRequired)
                    || advice.text.contains("--broker"), "\(code) \(flow): \(advice.text)")
            #expect(!advice.text.contains("MSALBrokerOptions") && advice.text.count < 330, "\(advice.text)")
        }
    }

    @Test("A device policy: the broker in every flow but the broker's own, which cannot pass by signing in again")
    func devicePolicies() throws {
        for code in ["53000", "53001", "530084"] {
            for flow in [SignInFlow.silent, .browser, .pasteBack, .deviceCode] {
                let advice = try #require(RefusalAdvice.advice(codes: [code], flow: flow, login: "msal login"))
                #expect(advice.text.contains("`msal login --broker`") && !advice.text.contains("browser"), "\(advice.text)")
                #expect(advice.exitCode == 3)
            }
            let broker = try #require(RefusalAdvice.advice(codes: [code], flow: .broker, login: "msal login"))
            #expect(broker.text.contains("compliant") && broker.exitCode == 1)
        }
    }

    @Test("A policy that blocks the device code flow: a browser; elsewhere, the administrator")
    func blockedFlow() throws {
        let deviceCode = try #require(RefusalAdvice.advice(codes: ["53003"], flow: .deviceCode, login: "msal login"))
        #expect(deviceCode.text.contains("`msal login`") && deviceCode.text.contains("--no-browser") && deviceCode.exitCode == 3)
        let browser = try #require(RefusalAdvice.advice(codes: ["53003"], flow: .browser, login: "msal login"))
        #expect(browser.text.contains("administrator") && browser.exitCode == 1)
        #expect(RefusalAdvice.advice(codes: ["53003"], flow: .silent, login: "msal login")?.exitCode == 3)
    }

    @Test("The most specific code decides; unknown codes give no advice")
    func precedenceAndUnknown() {
        #expect(RefusalAdvice.advice(codes: ["53003", "530084"], flow: .browser, login: "msal login")?.text.contains("530084") == true)
        #expect(RefusalAdvice.advice(codes: ["70016"], flow: .deviceCode, login: "msal login") == nil)
        #expect(RefusalAdvice.advice(codes: [], flow: .silent, login: "msal login") == nil)
    }

    @Test("describe: the same refusal exits alike whatever carries it, and the flow changes the advice")
    func describeUsesTheFlow() {
        var error = MSALErrorInfo(.serverError, description: "The server returned access_denied: AADSTS53000: Device is not in required device state.")
        error.stsErrorCodes = ["53000"]
        let silent = CLI.describe(error)
        #expect(silent.1 == 3 && silent.0.contains("msal login --broker"))
        let deviceCode = CLI.describe(SignInFailure(flow: .deviceCode, error: error), context: ErrorContext())
        #expect(deviceCode.1 == 3 && deviceCode.0.contains("msal login --broker") && !deviceCode.0.contains("browser"))
        let interaction = MSALErrorInfo(.interactionRequired, description: "AADSTS53000: Device is not in required device state.")
        #expect(CLI.describe(SignInFailure(flow: .pasteBack, error: interaction), context: ErrorContext()).1 == 3)
        let broker = CLI.describe(SignInFailure(flow: .broker, error: error), context: ErrorContext())
        #expect(broker.1 == 1 && broker.0.contains("compliant"))
    }
}
