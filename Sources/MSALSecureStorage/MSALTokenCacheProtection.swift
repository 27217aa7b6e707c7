import Foundation
import MSALCore

/// How a token cache is protected at rest: the tier ``MSALSecureTokenCacheStorage`` chose.
public enum MSALTokenCacheProtection: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The cache document is a secret in the desktop keyring (the freedesktop.org Secret Service: GNOME Keyring,
    /// KWallet), encrypted with the user's login password.
    case secretService = "secret-service"
    /// An AES-GCM encrypted file whose key is in the Linux kernel keyring: never on disk, lost at reboot (at logout
    /// too in the session keyring). Chosen before the key file only when asked for.
    case kernelKeyring = "kernel-keyring"
    /// An AES-GCM encrypted file whose key is in a 0600 file beside it: kept across reboots and logouts; it keeps the
    /// cache from being read by whoever copies the cache file alone, not from the user's own processes.
    case keyFile = "key-file"
    /// A plain JSON file (mode 0600), only when the application or the user allowed it.
    case plaintext
    /// Nothing is stored: tokens live as long as the process (no other tier could be used).
    case memoryOnly = "memory-only"

    /// Whether the cache is encrypted at rest.
    public var isEncrypted: Bool {
        switch self {
        case .secretService, .kernelKeyring, .keyFile: return true
        case .plaintext, .memoryOnly: return false
        }
    }

    /// How long a sign-in kept in this tier lasts, in words (`msal status`, `msal login`).
    public var lifetime: String {
        switch self {
        case .secretService: return "kept across reboots, unlocked with your login keyring"
        case .kernelKeyring: return "kept until the machine restarts (the key is only in kernel memory)"
        case .keyFile: return "kept across reboots and logouts"
        case .plaintext: return "kept across reboots"
        case .memoryOnly: return "kept only while the program runs"
        }
    }

    /// The tier's name in words, for logs and status output.
    public var description: String {
        switch self {
        case .secretService: return "Secret Service"
        case .kernelKeyring: return "kernel keyring"
        case .keyFile: return "key file"
        case .plaintext: return "plaintext file"
        case .memoryOnly: return "memory only"
        }
    }
}

/// One step of the protection chain: a tier, whether it was used, and why (or why not).
public struct MSALTokenCacheProtectionStep: Sendable, Equatable, CustomStringConvertible {
    /// The tier this step considered.
    public let protection: MSALTokenCacheProtection
    /// Whether the chain chose it.
    public let isUsed: Bool
    /// Why it was or was not used, in words that hold no secret.
    public let reason: String

    /// Creates a step.
    public init(protection: MSALTokenCacheProtection, isUsed: Bool, reason: String) {
        self.protection = protection
        self.isUsed = isUsed
        self.reason = reason
    }

    /// `"<tier>: used|not used (<reason>)"`.
    public var description: String { "\(protection): \(isUsed ? "used" : "not used") (\(reason))" }
}

/// Why a protected token cache could not be read or written. MSAL reports these as the underlying error of an
/// ``MSALErrorInfo`` with ``MSALInternalError/internalErrorUnexpected``; the stored data is left untouched.
public enum MSALTokenCacheProtectionError: Error, Sendable, Equatable {
    /// The file is not an encrypted MSAL token cache (its magic number is wrong, or it is too short for a header).
    case notAnEncryptedCache
    /// The file was written by a newer format version than this library reads.
    case unsupportedFormatVersion(UInt8)
    /// The header names a key source this library does not know.
    case unknownKeySource(UInt8)
    /// The file is shorter or longer than its header says: it was cut short (or appended to).
    case lengthMismatch(expected: Int, actual: Int)
    /// The key at hand is not the key the file was encrypted with.
    case wrongKey
    /// The ciphertext or its header was changed after it was written (the authentication tag does not match).
    case authenticationFailed
    /// The key store could not be used (a locked or unreachable keyring, a system call refused).
    case keyStoreUnavailable(String)
    /// The key file was refused: wrong owner, group- or world-accessible, not a regular file, or damaged.
    case keyFileRejected(String)
    /// The Secret Service refused or failed a request.
    case secretServiceFailed(String)
    /// The cache document cannot be a Secret Service secret (it holds a NUL byte).
    case unsupportedSecret
}

extension MSALTokenCacheProtectionError: CustomStringConvertible {
    /// What went wrong, in words that hold no key and no token.
    public var description: String {
        switch self {
        case .notAnEncryptedCache: return "the file is not an encrypted MSAL token cache"
        case .unsupportedFormatVersion(let version):
            return "the file has format version \(version), which this version of MSAL cannot read"
        case .unknownKeySource(let source): return "the file names an unknown key source (\(source))"
        case .lengthMismatch(let expected, let actual):
            return "the file holds \(actual) bytes where its header announces \(expected): it was cut short or changed"
        case .wrongKey: return "the file was encrypted with another key than the one in the key store"
        case .authenticationFailed: return "the file's authentication tag does not match: it was changed or damaged"
        case .keyStoreUnavailable(let reason): return "the key store cannot be used: \(reason)"
        case .keyFileRejected(let reason): return "the key file was refused: \(reason)"
        case .secretServiceFailed(let reason): return "the Secret Service failed: \(reason)"
        case .unsupportedSecret: return "the token cache holds a NUL byte and cannot be stored as a Secret Service secret"
        }
    }

    /// This error as MSAL reports it: an ``MSALErrorInfo`` naming the cache file and what to do.
    func errorInfo(file: String?) -> MSALErrorInfo {
        let place = file.map { " (\($0))" } ?? ""
        let advice: String
        switch self {
        case .wrongKey, .authenticationFailed, .lengthMismatch, .notAnEncryptedCache, .unknownKeySource:
            advice = " The file was left as it is; move it away to start with an empty cache (the user signs in again)."
        case .unsupportedFormatVersion:
            advice = " The file was left as it is; use a newer version of MSAL, or move it away."
        case .keyStoreUnavailable, .keyFileRejected, .secretServiceFailed, .unsupportedSecret:
            advice = ""
        }
        return MSALErrorInfo.internal(.internalErrorUnexpected,
                                      "The encrypted token cache\(place) cannot be used: \(description).\(advice)",
                                      underlyingError: self)
    }
}
