public import Foundation
import Crypto

/// The encrypted token cache file: a fixed header, then the AES-256-GCM ciphertext of the cache document and its
/// 16-byte tag. The whole header is authenticated (it is the additional data), so no header byte can be changed
/// without the tag failing.
///
/// ```
/// offset  size  field
///      0     6  magic "MSALTC"
///      6     1  format version (1)
///      7     1  key source (1: kernel keyring, 2: key file)
///      8     8  key id: the first 8 bytes of SHA-256("msal-swift token cache key" || key)
///     16    12  nonce
///     28     8  ciphertext length, big-endian
///     36     n  ciphertext
///   36+n    16  tag
/// ```
public struct MSALEncryptedCacheHeader: Sendable, Equatable {
    /// The first bytes of every encrypted cache file.
    public static let magic: [UInt8] = Array("MSALTC".utf8)
    /// The format version this library writes and reads.
    public static let currentFormatVersion: UInt8 = 1
    /// The header's size in bytes.
    public static let size = 36
    /// The AES-GCM tag's size in bytes.
    public static let tagSize = 16
    /// The nonce's size in bytes.
    public static let nonceSize = 12

    /// Where the key lives.
    public enum KeySource: UInt8, Sendable {
        /// The Linux kernel keyring.
        case kernelKeyring = 1
        /// A key file beside the cache.
        case keyFile = 2
    }

    /// The format version.
    public var formatVersion: UInt8
    /// Where the key lives.
    public var keySource: KeySource
    /// The key's id (a fingerprint of the key, not the key).
    public var keyId: [UInt8]
    /// The AES-GCM nonce.
    public var nonce: [UInt8]
    /// The ciphertext's length in bytes.
    public var ciphertextLength: Int

    /// Reads the header of an encrypted cache file and checks the file's length against it.
    ///
    /// - Throws: ``MSALTokenCacheProtectionError`` (`.notAnEncryptedCache`, `.unsupportedFormatVersion`,
    ///   `.unknownKeySource`, `.lengthMismatch`); never traps, whatever the input.
    public static func parse(_ file: Data) throws(MSALTokenCacheProtectionError) -> MSALEncryptedCacheHeader {
        try parse(prefix: file.prefix(size), fileLength: file.count)
    }

    /// Reads the header from the first bytes of a file (``size`` of them, or all there are) and checks the file's
    /// length against it; throws as ``parse(_:)``.
    public static func parse(prefix: Data, fileLength: Int) throws(MSALTokenCacheProtectionError) -> MSALEncryptedCacheHeader {
        let bytes = [UInt8](prefix.prefix(size))
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else { throw .notAnEncryptedCache }
        guard bytes.count > 6 else { throw .notAnEncryptedCache }
        guard bytes[6] == currentFormatVersion else { throw .unsupportedFormatVersion(bytes[6]) }
        guard bytes.count == size else { throw .lengthMismatch(expected: size + tagSize, actual: fileLength) }
        guard let source = KeySource(rawValue: bytes[7]) else { throw .unknownKeySource(bytes[7]) }
        var length: UInt64 = 0
        for byte in bytes[28..<36] { length = length << 8 | UInt64(byte) }
        let expected = length > UInt64(Int.max - size - tagSize) ? Int.max : size + Int(length) + tagSize
        guard fileLength == expected else { throw .lengthMismatch(expected: expected, actual: fileLength) }
        return MSALEncryptedCacheHeader(formatVersion: bytes[6], keySource: source, keyId: Array(bytes[8..<16]),
                                        nonce: Array(bytes[16..<28]), ciphertextLength: Int(length))
    }

    /// The header's bytes.
    public var bytes: [UInt8] {
        var out = Self.magic
        out.append(formatVersion)
        out.append(keySource.rawValue)
        out += keyId
        out += nonce
        let length = UInt64(ciphertextLength)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: length >> UInt64(shift))) }
        return out
    }
}

/// Seals and opens encrypted cache files.
enum EncryptedCacheFile {
    /// The key id of `key`: a fingerprint that tells keys apart without revealing them.
    static func keyId(_ key: SymmetricKey) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("msal-swift token cache key".utf8))
        key.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize().prefix(8))
    }

    /// The encrypted file for `document`.
    static func seal(_ document: Data, key: SymmetricKey, source: MSALEncryptedCacheHeader.KeySource) throws -> Data {
        let nonce = AES.GCM.Nonce()
        let header = MSALEncryptedCacheHeader(formatVersion: MSALEncryptedCacheHeader.currentFormatVersion,
                                              keySource: source, keyId: keyId(key), nonce: Array(nonce),
                                              ciphertextLength: document.count)
        let headerBytes = header.bytes
        let box = try AES.GCM.seal(document, using: key, nonce: nonce, authenticating: headerBytes)
        var file = Data(headerBytes)
        file.append(box.ciphertext)
        file.append(box.tag)
        return file
    }

    /// The document in `file`, whose `header` was parsed already, decrypted with `key`.
    static func open(_ file: Data, header: MSALEncryptedCacheHeader,
                     key: SymmetricKey) throws(MSALTokenCacheProtectionError) -> Data {
        guard keyId(key) == header.keyId else { throw .wrongKey }
        let start = file.startIndex + MSALEncryptedCacheHeader.size
        let tagStart = start + header.ciphertextLength
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: header.nonce),
                                            ciphertext: file[start..<tagStart],
                                            tag: file[tagStart..<(tagStart + MSALEncryptedCacheHeader.tagSize)])
            return try AES.GCM.open(box, using: key, authenticating: file[file.startIndex..<start])
        } catch {
            throw .authenticationFailed
        }
    }
}
