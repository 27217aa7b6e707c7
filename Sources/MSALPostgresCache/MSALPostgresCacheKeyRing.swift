public import Crypto
import Foundation
import MSALCore

/// The keys that encrypt the partitions of an ``MSALPostgresTokenCache`` (AES-GCM, 256-bit keys), by key id.
///
/// Rows are written with the ``currentKeyId`` key and carry its id; rows written with an older key are read with
/// that key and re-encrypted with the current one when they are next written. To rotate: add the new key, make it
/// current on every instance, and remove the old key once no row carries its id (or its rows expired):
///
/// ```sql
/// SELECT key_id, count(*) FROM msal_token_cache GROUP BY key_id;
/// ```
///
/// Key ids are stored in clear and appear in logs; keys never do.
public struct MSALPostgresCacheKeyRing: Sendable {
    /// The id of the key new rows are encrypted with.
    public let currentKeyId: String
    private let keys: [String: SymmetricKey]

    /// A ring of `keys` by id, encrypting with `currentKeyId`, which must be one of them. Keys must be 256 bits
    /// long; ids 1 to 64 characters.
    public init(currentKeyId: String, keys: [String: SymmetricKey]) throws {
        guard let current = keys[currentKeyId], current.bitCount == 256 else {
            throw MSALPostgresCacheError.configuration("The key ring's current key id names no 256-bit key.")
        }
        for (id, key) in keys where id.isEmpty || id.count > 64 || key.bitCount != 256 {
            throw MSALPostgresCacheError.configuration("Key ids must have 1 to 64 characters and keys 256 bits.")
        }
        self.currentKeyId = currentKeyId
        self.keys = keys
    }

    /// A ring with one key.
    public init(keyId: String, key: SymmetricKey) throws {
        try self.init(currentKeyId: keyId, keys: [keyId: key])
    }

    /// The key ids the ring can read.
    public var keyIds: [String] { keys.keys.sorted() }

    /// `plaintext` sealed with the current key, bound to `partition` and the key id (additional authenticated
    /// data): nonce, ciphertext and tag.
    func seal(_ plaintext: Data, partition: String) throws -> (data: Data, keyId: String) {
        let box = try AES.GCM.seal(plaintext, using: keys[currentKeyId]!,
                                   authenticating: Self.associatedData(partition: partition, keyId: currentKeyId))
        guard let combined = box.combined else {
            throw MSALPartitionedCacheError(.unreadable, "AES-GCM sealing failed")
        }
        return (combined, currentKeyId)
    }

    /// The plaintext of a row; ``MSALPartitionedCacheError`` of kind ``MSALPartitionedCacheError/Kind/unreadable``
    /// for an unknown key id, truncated data or a failed authentication (a tampered row, or one moved from
    /// another partition).
    func open(_ sealed: Data, keyId: String, partition: String) throws -> Data {
        guard let key = keys[keyId] else {
            throw MSALPartitionedCacheError(.unreadable, "the row's key id '\(keyId.prefix(64))' is not in the key ring")
        }
        guard sealed.count >= 12 + 16 else {
            throw MSALPartitionedCacheError(.unreadable, "the row's data is truncated")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return try AES.GCM.open(box, using: key, authenticating: Self.associatedData(partition: partition, keyId: keyId))
        } catch {
            throw MSALPartitionedCacheError(.unreadable, "the row's data failed authentication (tampered or truncated)")
        }
    }

    private static func associatedData(partition: String, keyId: String) -> Data {
        Data("msal-token-cache-v1\u{0}\(partition)\u{0}\(keyId)".utf8)
    }
}

/// Errors of the PostgreSQL token cache's set-up. Descriptions never hold a key, a token or a password.
public enum MSALPostgresCacheError: Error, Sendable, CustomStringConvertible {
    /// A configuration value is not usable.
    case configuration(String)
    /// The cache was shut down.
    case shutDown

    public var description: String {
        switch self {
        case .configuration(let message): return message
        case .shutDown: return "The PostgreSQL token cache was shut down."
        }
    }
}
