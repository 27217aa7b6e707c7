import Foundation
import MSALTestSupport
import Testing
import MSAL

/// The tool's proof-of-possession key file: made once (mode 0600) and the same key for every store of the path; a file
/// that is not a key, or a link planted at the path, is an error and is never overwritten or followed to write.
@Suite("Proof-of-possession key file")
struct FilePoPKeyStoreTests {
    @Test func theKeyIsMadeOnceAndRotationReplacesIt() throws {
        let directory = ScratchDirectory.path("pop-key")
        let file = directory.appendingPathComponent("state/pop-key.pem")
        let made = try MSALFilePoPKeyStore(fileURL: file).keyPair()
        #expect(try MSALFilePoPKeyStore(fileURL: file).keyPair().keyId == made.keyId)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let rotated = try MSALFilePoPKeyStore(fileURL: file).rotate()
        #expect(rotated.keyId != made.keyId)
        #expect(try MSALFilePoPKeyStore(fileURL: file).keyPair().keyId == rotated.keyId)
    }

    @Test func aFileThatIsNotAKeyAndAPlantedLinkAreLeftAlone() throws {
        let directory = ScratchDirectory.path("pop-key-decoy")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let notAKey = directory.appendingPathComponent("pop-key.pem")
        try Data("not a key".utf8).write(to: notAKey)
        #expect(throws: MSALErrorInfo.self) { try MSALFilePoPKeyStore(fileURL: notAKey).keyPair() }
        #expect(try String(contentsOf: notAKey, encoding: .utf8) == "not a key")

        let decoy = directory.appendingPathComponent("decoy")
        try Data("keep".utf8).write(to: decoy)
        let linked = directory.appendingPathComponent("linked.pem")
        try FileManager.default.createSymbolicLink(atPath: linked.path, withDestinationPath: decoy.path)
        #expect(throws: MSALErrorInfo.self) { try MSALFilePoPKeyStore(fileURL: linked).keyPair() }
        // A dangling link: the key is never created through it.
        let dangling = directory.appendingPathComponent("dangling.pem")
        let target = directory.appendingPathComponent("would-be-created")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: target.path)
        #expect(throws: MSALErrorInfo.self) { try MSALFilePoPKeyStore(fileURL: dangling).keyPair() }
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(try String(contentsOf: decoy, encoding: .utf8) == "keep")
    }
}
