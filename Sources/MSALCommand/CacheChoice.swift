import Foundation
import MSALSupport
import MSAL

/// The token cache a command uses, created at most once per process (choosing the protection tier probes the
/// machine):
/// - `--cache FILE` (or `MSAL_CACHE`, or the profile's `cache`): that file, plain JSON with mode 0600, shareable
///   with MSAL for Python, .NET and Node;
/// - otherwise MSAL's protected default (`MSALSecureTokenCacheStorage`): the Secret Service, else an encrypted
///   file keyed from the kernel keyring or a key file; a plaintext cache the tool wrote before is moved into it.
final class CacheChoice: Sendable {
    /// The path given, or nil for MSAL's protected default.
    let path: String?
    private let made = LockedBox<(any MSALTokenCacheStorage)?>(nil)
    /// The protected default's configuration: the plaintext cache this tool wrote before is migrated into it.
    private let secureConfiguration: MSALSecureTokenCacheConfig = {
        var configuration = MSALSecureTokenCacheConfig()
        configuration.migratesPlaintextCache = true
        return configuration
    }()

    init(path: String?) {
        self.path = path
    }

    /// The file of `--cache`, tilde expanded.
    var fileURL: URL? { path.map { URL(fileURLWithPath: HomePath.expand($0)) } }

    /// A stable name of the cache, for the active-account record.
    var location: String { fileURL?.path ?? "default" }

    /// The storage, created on first use.
    var storage: any MSALTokenCacheStorage {
        made.withLock { existing in
            if let existing { return existing }
            let created = makeStorage()
            existing = created
            return created
        }
    }

    private func makeStorage() -> any MSALTokenCacheStorage {
        guard let fileURL else { return MSALSecureTokenCacheStorage(configuration: secureConfiguration) }
        // Moving an unreadable cache aside is never silent: say so on stderr, verbose or not.
        return MSALFileTokenCacheStorage(fileURL: fileURL, setAsideHandler: { file, movedTo in
            CLI.err("warning: the token cache file \(file.path) could not be read and was moved to \(movedTo.path)")
        })
    }

    /// The protection in words and its details, for `msal status` and `msal login`.
    struct ProtectionSummary {
        var tier: String
        var encrypted: Bool
        var location: String
        var steps: [String]
        /// How long a sign-in lasts in this cache (``MSALTokenCacheProtection/lifetime``).
        var lifetime: String
    }

    var protectionSummary: ProtectionSummary {
        if let secure = storage as? MSALSecureTokenCacheStorage {
            let config = secureConfiguration
            let where_: String
            switch secure.protection {
            case .secretService: where_ = "Secret Service item (signal file \(config.secretServiceSignalFileURL.path))"
            case .kernelKeyring, .keyFile: where_ = config.encryptedFileURL.path
            case .plaintext: where_ = config.plaintextFileURL.path
            case .memoryOnly: where_ = "memory only"
            }
            return ProtectionSummary(tier: secure.protection.rawValue, encrypted: secure.protection.isEncrypted,
                                     location: where_, steps: secure.steps.map(\.description),
                                     lifetime: secure.protection.lifetime)
        }
        return ProtectionSummary(tier: "plaintext", encrypted: false, location: fileURL?.path ?? "",
                                 steps: ["plain JSON file given with --cache (mode 0600)"],
                                 lifetime: MSALTokenCacheProtection.plaintext.lifetime)
    }
}
