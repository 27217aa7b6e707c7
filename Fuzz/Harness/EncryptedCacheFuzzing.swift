import Crypto
import Foundation
@testable import MSALSecureStorage

/// The encrypted token cache file (MSALSecureStorage): whatever a broken disk, another program or an attacker left
/// in `msal_token_cache.bin`.
enum EncryptedCacheFuzzing {
    /// The key the seeds were sealed with (32 bytes of 0x42), so that the fuzzer reaches the decryption too.
    static let key = SymmetricKey(data: [UInt8](repeating: 0x42, count: 32))

    /// Parses `data` as an encrypted cache file and opens it with ``key``. Rejections are typed
    /// (`MSALTokenCacheProtectionError`, by the parser's typed throws). When the header is accepted:
    /// - it writes back to the input's first 36 bytes, and the input is exactly header + ciphertext + tag long;
    /// - opening fails only with `wrongKey` or `authenticationFailed`; an opened document seals and opens again to
    ///   itself, and the same bytes sealed with any other key id are refused with `wrongKey`.
    /// Independently, the input as a document seals and opens back to itself.
    static func header(_ data: Data) throws {
        try roundTrip(data)
        let header: MSALEncryptedCacheHeader
        do {
            header = try MSALEncryptedCacheHeader.parse(data)
        } catch {
            return
        }
        try fuzzCheck(header.bytes == Array(data.prefix(MSALEncryptedCacheHeader.size)), "the header does not write back to its bytes")
        try fuzzCheck(data.count == MSALEncryptedCacheHeader.size + header.ciphertextLength + MSALEncryptedCacheHeader.tagSize,
                      "a header was accepted for a file of another length")
        let document: Data
        do {
            document = try EncryptedCacheFile.open(data, header: header, key: key)
        } catch {
            try fuzzCheck(error == .wrongKey || error == .authenticationFailed, "opening failed with \(error)")
            return
        }
        try fuzzCheck(document.count == header.ciphertextLength, "the document's length differs from the ciphertext's")
        try roundTrip(document)
    }

    private static func roundTrip(_ document: Data) throws {
        let sealed = try EncryptedCacheFile.seal(document, key: key, source: .keyFile)
        let header = try MSALEncryptedCacheHeader.parse(sealed)
        try fuzzCheck(try EncryptedCacheFile.open(sealed, header: header, key: key) == document, "a sealed document did not open to itself")
        do {
            _ = try EncryptedCacheFile.open(sealed, header: header, key: SymmetricKey(size: .bits256))
            throw FuzzFailure("a file opened with another key")
        } catch let error as MSALTokenCacheProtectionError {
            try fuzzCheck(error == .wrongKey, "another key gave \(error), not wrongKey")
        }
    }
}
