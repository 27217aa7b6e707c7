import Foundation
import Testing
@testable import MSALCore
@testable import MSALSecureStorage

/// The proof-of-possession key in the Secret Service: made once and found again by a new store (another process),
/// rotated in place, a locked keyring and a stored secret that is no key refused with typed errors.
@Suite("Proof-of-possession key in the Secret Service")
struct SecretServicePoPKeyStoreTests {
    @Test func madeOnceFoundAgainAndRotated() throws {
        let service = MemorySecretService()
        let first = try MSALSecretServicePoPKeyStore(name: "t", backend: service).keyPair()
        // Another store (as another process) finds the same key; it is kept under the schema and the name only.
        #expect(try MSALSecretServicePoPKeyStore(name: "t", backend: service).keyPair().keyId == first.keyId)
        #expect(service.items.get().keys.sorted() == ["\(MSALSecretServicePoPKeyStore.schema)|key_name=t"])
        let store = MSALSecretServicePoPKeyStore(name: "t", backend: service)
        let rotated = try store.rotate()
        let current = try store.keyPair().keyId
        #expect(rotated.keyId != first.keyId && current == rotated.keyId)
        #expect(try MSALSecretServicePoPKeyStore(name: "t", backend: service).keyPair().keyId == rotated.keyId)
        // Another name is another key.
        #expect(try MSALSecretServicePoPKeyStore(name: "u", backend: service).keyPair().keyId != rotated.keyId)
    }

    @Test func aLockedKeyringAndAForeignSecretAreTypedErrors() throws {
        #expect(throws: MSALErrorInfo.self) {
            try MSALSecretServicePoPKeyStore(name: "t", backend: FailingSecretService(message: "locked")).keyPair()
        }
        let service = MemorySecretService()
        try service.store(schema: MSALSecretServicePoPKeyStore.schema, attributes: ["key_name": "t"], label: "x",
                          collection: nil, secret: "not a key")
        #expect(throws: MSALErrorInfo.self) { try MSALSecretServicePoPKeyStore(name: "t", backend: service).keyPair() }
        // Left as it was.
        #expect(try service.lookup(schema: MSALSecretServicePoPKeyStore.schema, attributes: ["key_name": "t"]) == "not a key")
    }

    @Test func theRealSecretServiceKeepsTheKey() throws {
        guard RealSecretService.check() else { return }
        let name = "test-\(UUID().uuidString)"
        defer { _ = try? LibSecret.shared.get().clear(schema: MSALSecretServicePoPKeyStore.schema, attributes: ["key_name": name]) }
        let made = try MSALSecretServicePoPKeyStore(name: name).keyPair()
        #expect(try MSALSecretServicePoPKeyStore(name: name).keyPair().keyId == made.keyId)
    }
}
