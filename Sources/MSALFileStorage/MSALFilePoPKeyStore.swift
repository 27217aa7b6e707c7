public import Foundation
public import MSALCore
import MSALSupport

/// A proof-of-possession key kept in a file (PEM, PKCS #8, mode 0600), as an SSH client keeps its key: the same key,
/// and so the same cached bound tokens, for every process of the user. The file is created exclusively and never
/// through a link; a file that is not an RSA key of 2048 bits or more is an error, never overwritten. Rotation
/// writes a new file and renames it over the old one.
///
/// The key is protected by the file's mode only, not encrypted at rest.
public struct MSALFilePoPKeyStore: MSALPoPKeyStore {
    /// The key file.
    public let fileURL: URL

    /// A store of the key in `fileURL` (made on first use).
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    public func keyPair() throws -> MSALPoPKeyPair {
        if let existing = try read() { return existing }
        let made = try MSALPoPKeyPair()
        do {
            try PrivateFiles.makeDirectory(fileURL.deletingLastPathComponent().path)
            try PrivateFiles.createNew(Data((made.pemRepresentation ?? "").utf8), at: fileURL.path, mode: 0o600)
            return made
        } catch {
            // Another process made it meanwhile: use that one.
            if let existing = try read() { return existing }
            throw MSALErrorInfo.internal(.internalErrorUnexpected,
                                         "The proof-of-possession key file \(fileURL.path) could not be created: \(error)")
        }
    }

    public func rotate() throws -> MSALPoPKeyPair {
        let made = try MSALPoPKeyPair()
        do {
            try PrivateFiles.replace(fileURL.path, with: Data((made.pemRepresentation ?? "").utf8), mode: 0o600)
        } catch {
            throw MSALErrorInfo.internal(.internalErrorUnexpected,
                                         "The proof-of-possession key file \(fileURL.path) could not be replaced: \(error)")
        }
        return made
    }

    private func read() throws -> MSALPoPKeyPair? {
        let data: Data
        do {
            data = try OutsideFile.read(fileURL.path, limit: 64 * 1024)
        } catch .absent {
            return nil
        } catch {
            throw MSALErrorInfo.internal(.internalErrorUnexpected,
                                         "The proof-of-possession key file \(fileURL.path) cannot be read (\(error)).")
        }
        return try MSALPoPKeyPair(pemRepresentation: String(decoding: data, as: UTF8.self))
    }
}
