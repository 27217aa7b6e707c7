import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

/// The emulator's start-up errors say what is wrong in words: a busy port, a missing or malformed configuration
/// file (which field, what was expected), never a raw system call name or a Foundation error dump.
@Suite("Emulator start-up errors")
struct StartErrorTests {
    @Test func aBusyPortIsNamedWithWhatToDo() async throws {
        let first = try await IdentityEmulator.start()
        defer { Task { await first.stop() } }
        var configuration = EmulatorConfiguration.default
        configuration.httpsPort = first.httpsURL.port ?? 0
        do {
            let second = try await IdentityEmulator.start(configuration)
            await second.stop()
            Issue.record("a second emulator started on a port in use")
        } catch let error as EmulatorStartError {
            #expect(error.message.contains("already in use"), "\(error.message)")
            #expect(error.message.contains("\(first.httpsURL.port ?? 0)"))
            #expect(!error.message.contains("bind("))
        }
    }

    /// An auto-approve user the directory does not have is refused at start, naming the users it has, instead of
    /// leaving every sign-in waiting.
    @Test func anUnknownAutoApproveUserIsRefused() async throws {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = "bob@nowhere.example"
        await #expect { try await IdentityEmulator.start(configuration) } throws: { error in
            let message = (error as? EmulatorStartError)?.message ?? ""
            return message.contains("bob@nowhere.example") && message.contains(configuration.defaults.username)
        }
        configuration.autoApproveUsername = configuration.defaults.username.uppercased()
        let started = try await IdentityEmulator.start(configuration)
        await started.stop()
    }

    @Test func configurationFileErrorsNameTheFileAndTheField() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-emulator-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing.json")
        #expect(throws: EmulatorStartError.self) { try EmulatorConfiguration.load(contentsOf: missing) }
        do { _ = try EmulatorConfiguration.load(contentsOf: missing) } catch let error as EmulatorStartError {
            #expect(error.message.contains("missing.json") && error.message.contains("no such file"))
            #expect(!error.message.contains("NSCocoaErrorDomain"))
        }

        let notJSON = directory.appendingPathComponent("broken.json")
        try Data("{ tenants: ".utf8).write(to: notJSON)
        do { _ = try EmulatorConfiguration.load(contentsOf: notJSON) } catch let error as EmulatorStartError {
            #expect(error.message.contains("broken.json") && error.message.contains("not JSON"), "\(error.message)")
        }

        // A field of the wrong type: named with its path, with what was expected.
        let data = try JSONEncoder().encode(EmulatorConfiguration.default)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["httpsPort"] = "eight thousand"
        let wrongType = directory.appendingPathComponent("wrong.json")
        try JSONSerialization.data(withJSONObject: object).write(to: wrongType)
        do {
            _ = try EmulatorConfiguration.load(contentsOf: wrongType)
            Issue.record("a string port was accepted")
        } catch let error as EmulatorStartError {
            #expect(error.message.contains("'httpsPort'") && error.message.contains("a number"), "\(error.message)")
        }
    }
}
