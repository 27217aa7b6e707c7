import Foundation
import Testing
import MSAL
import MSALTesting
import MSALEmulator
@testable import MSALSamples
import MSALTestSupport

/// The Graph tutorial answers a claims challenge (continuous access evaluation) once, through the library's parser.
@Suite("Examples: claims challenge", .serialized)
struct ExampleClaimsChallengeTests {
    @Test func graphTutorialAnswersAClaimsChallengeAfterRevocation() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        defer { Task { await emulator.stop() } }
        let lines = ExampleTests.Lines()
        let settings = GraphTutorialSettings(
            clientId: emulator.clientId, authority: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)",
            graphEndpoint: emulator.httpURL.absoluteString, cacheStorage: MSALInMemoryTokenCacheStorage(),
            webAuthenticator: EmulatorAutoApproveAuthenticator())
        let tutorial = GraphTutorial(settings: settings) { lines.append($0) }
        try tutorial.initMSAL()
        tutorial.initWebViewParams()
        await tutorial.callGraphAPI()   // interactive sign-in, then Graph
        #expect(tutorial.failures == 0, "\(lines.all)")

        let revoke = MSALHTTPRequest(method: "POST", url: emulator.httpURL.appendingPathComponent("_emulator/revoke"),
                                     headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                     body: Data("user=\(emulator.username)".utf8), timeout: 10)
        #expect(try await MSALDefaultHTTPClient.shared.send(revoke).statusCode == 200)

        await tutorial.callGraphAPI()   // silent: the cached token is challenged, answered once
        #expect(tutorial.failures == 0, "\(lines.all)")
        let text = lines.all.joined(separator: "\n")
        #expect(text.contains("claims challenge"))
        #expect(text.components(separatedBy: "Result from Graph").count == 3)
        #expect(!text.contains("eyJ"))
    }
}
