import Foundation
import MSALTestSupport
import Testing
import MSALEmulator
import MSALEmulatorCore
@testable import MSALCommand

/// Every policy refusal the tool maps, met through the built binary in each flow the emulator can refuse (a silent
/// token, the device code flow, a browser sign-in): the exit code `msal --help` documents, and one error line with the
/// code and the flow's next step.
@Suite("msal's refusal advice through the binary", .serialized)
struct RefusalMatrixCommandTests {
    @Test(arguments: RefusalAdvice.precedence)
    func eachCodeInEachFlow(code: String) async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        #expect(try await setup.msal(["login", "--device-code"]).status == 0)
        let runs: [(SignInFlow, [String])] = [
            (.silent, ["token", "--force-refresh"]),
            (.deviceCode, ["login", "--device-code"]),
            (.browser, ["login", "--emulator-auto-approve"]),
        ]
        for (flow, arguments) in runs {
            setup.emulator.injectFault(FaultRule(endpoint: .token, count: 1, errorCode: Int(code)))
            let output = try await setup.msal(arguments)
            let advice = try #require(RefusalAdvice.advice(codes: [code], flow: flow, login: "msal login"))
            #expect(output.status == advice.exitCode, "\(code) \(flow): \(output.stderr)")
            let lines = output.stderr.split(separator: "\n").filter { $0.hasPrefix("msal: error:") }
            #expect(lines.count == 1 && lines[0].contains("AADSTS\(code)"), "\(code) \(flow): \(output.stderr)")
            let step = advice.exitCode == 3 ? "msal login" : "administrator"
            #expect(lines.first?.contains(step) == true || lines.first?.contains("compliant") == true,
                    "\(code) \(flow): \(output.stderr)")
        }
    }
}
