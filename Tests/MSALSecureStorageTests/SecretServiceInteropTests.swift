import Foundation
import Testing
@testable import MSALCore
@testable import MSALSecureStorage
import MSALTestSupport

/// One Secret Service item shared with MSAL for Python's msal-extensions (`LibsecretPersistence`): what either
/// library stores, the other reads. Needs MSAL_SECRET_SERVICE_PYTHON, a Python with msal-extensions and PyGObject
/// (scripts/test.sh makes one); skipped without it unless MSAL_SECRET_SERVICE_REQUIRED=1. Serialized: each
/// msal-extensions process stores, reads back and clears one fixed trial item, which two at once would race on.
@Suite("Secret Service interop with msal-extensions", .serialized)
struct SecretServiceInteropTests {
    let directory = SecureFixtures.temporaryDirectory()
    var signalURL: URL { directory.appendingPathComponent("msal_token_cache.bin") }

    private var python: String? {
        let value = ProcessInfo.processInfo.environment["MSAL_SECRET_SERVICE_PYTHON"]
        if (value ?? "").isEmpty, RealSecretService.required {
            Issue.record("MSAL_SECRET_SERVICE_PYTHON is not set")
        }
        return value.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Runs msal-extensions on `signalURL`: `load` prints the secret, `save` stores standard input.
    private func persistence(_ python: String, _ action: String, schema: String? = nil, attributes: [String: String] = [:],
                             input: String? = nil) throws -> (status: Int32, output: String) {
        let attributesJSON = String(decoding: try JSONSerialization.data(withJSONObject: attributes), as: UTF8.self)
        let script = """
        import json, sys
        from msal_extensions import LibsecretPersistence
        schema = sys.argv[3] or None
        p = LibsecretPersistence(sys.argv[1], schema_name=schema, attributes=json.loads(sys.argv[4]))
        if sys.argv[2] == "load":
            sys.stdout.write(p.load())
        else:
            p.save(sys.stdin.read())
        """
        return try RealSecretService.run(python, ["-c", script, signalURL.path, action, schema ?? "", attributesJSON],
                                         input: input)
    }

    @Test func pythonReadsWhatSwiftStoredWithTheDefaultItem() throws {
        guard RealSecretService.check(), let python else { return }
        let storage = try MSALSecretServiceTokenCacheStorage(signalFileURL: signalURL)
        defer { _ = try? LibSecret.shared.get().clear(schema: storage.schemaName, attributes: [:]) }
        _ = try storage.withExclusiveAccess { try storage.write(SecureFixtures.document) }
        let loaded = try persistence(python, "load")
        #expect(loaded.status == 0)
        #expect(loaded.output == String(decoding: SecureFixtures.document, as: UTF8.self))
    }

    @Test func swiftReadsWhatPythonStoredAndSeesTheVersionChange() throws {
        guard RealSecretService.check(), let python else { return }
        let configuration = MSALSecretServiceConfig(schemaName: "org.msal-swift.interop.\(UUID().uuidString)",
                                                    attributes: ["app": "interop", "env": "test"])
        let storage = try MSALSecretServiceTokenCacheStorage(signalFileURL: signalURL, configuration: configuration)
        defer { _ = try? LibSecret.shared.get().clear(schema: storage.schemaName, attributes: configuration.attributes) }
        _ = try storage.withExclusiveAccess { try storage.write(Data("{}".utf8)) }
        // The signal file's modification time is set back a minute: the save below moves it, whatever the clock's tick.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: signalURL.path)
        let before = try storage.currentVersion()
        let document = "{\"AccessToken\":{},\"Account\":{}}"
        let saved = try persistence(python, "save", schema: configuration.schemaName, attributes: configuration.attributes,
                                    input: document)
        #expect(saved.status == 0)
        #expect(try storage.currentVersion() != before)
        #expect(try storage.read()?.data == Data(document.utf8))
    }
}
