import Crypto
import _CryptoExtras
import Foundation
import MSAL
import MSALCore
import Security
import Testing

/// The proof-of-possession key in MSAL for iOS/macOS's keychain item: made once with MSAL's attributes, found again
/// by a new store (a relaunch), signing through the keychain, rotated in place, and an item MSAL for iOS/macOS made
/// read as it is.
extension AppleSurfaceTests {
    /// Keys of the stand-in's `SecKeyCreateRandomKey`: RSA keys of swift-crypto behind `SecKey`s, as the keychain's.
    static func installKeyMaker() {
        SurfaceKeychain.shared.surfaceKeyMaker = { type, bits in
            guard type == kSecAttrKeyTypeRSA as String, bits == 2048,
                  let key = try? _RSA.Signing.PrivateKey(keySize: .bits2048) else { return nil }
            return keychainKey(key)
        }
    }

    static func keychainKey(_ key: _RSA.Signing.PrivateKey) -> SecKey {
        let publicKey = SecKey(surfaceAlgorithms: [], sign: { _, _ in nil },
                               externalRepresentation: key.publicKey.pkcs1DERRepresentation)
        return SecKey(surfaceAlgorithms: [.rsaSignatureMessagePKCS1v15SHA256, .rsaSignatureDigestPKCS1v15SHA256],
                      sign: { algorithm, data in
                          guard algorithm == .rsaSignatureMessagePKCS1v15SHA256 else { return nil }
                          return try? key.signature(for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5).rawRepresentation
                      }, publicKey: publicKey)
    }

    static func popKeyItems() -> [SurfaceKeychain.Item] {
        SurfaceKeychain.shared.storedItems.filter {
            $0.itemClass == kSecClassKey as String
                && $0.attributes[kSecAttrApplicationTag as String] as? Data == Data("com.microsoft.token.private.key".utf8)
        }
    }

    @Test func thePoPKeyIsMSALsKeychainItemFoundAgainAndRotated() throws {
        AppleFixture.resetKeychain()
        Self.installKeyMaker()
        defer { SurfaceKeychain.shared.surfaceKeyMaker = nil }
        let store = MSALKeychainPoPKeyStore(keychainSharingGroup: AppleFixture.group)
        let key = try store.keyPair()
        let items = Self.popKeyItems()
        #expect(items.count == 1)
        let item = try #require(items.first)
        #expect(item.accessGroup == AppleFixture.accessGroup)
        #expect(item.attributes[kSecAttrLabel as String] as? String == "com.microsoft.token.key")
        #expect(item.attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
        #expect(item.attributes[kSecAttrIsExtractable as String] as? Bool == false)
        #expect(item.attributes[kSecAttrIsSensitive as String] as? Bool == true)
        #expect(item.inDataProtectionKeychain)

        // A relaunch finds the same key; it signs through the keychain, and the signature verifies with its public key.
        let again = try MSALKeychainPoPKeyStore(keychainSharingGroup: AppleFixture.group).keyPair()
        #expect(again.keyId == key.keyId && again.pemRepresentation == nil)
        let signature = try MSALPoPKeyPair.benchmarkSignature(again)
        let jwk = try #require(try JSONSerialization.jsonObject(with: Data(again.jsonWebKey.utf8)) as? [String: String])
        let modulus = try #require(Self.base64URL(jwk["n"] ?? "")), exponent = try #require(Self.base64URL(jwk["e"] ?? ""))
        let verifier = try _RSA.Signing.PublicKey(n: modulus, e: exponent)
        #expect(verifier.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature),
                                          for: SHA256.hash(data: Data(repeating: 0x61, count: 1400)), padding: .insecurePKCS1v1_5))

        // Rotation replaces the item.
        let rotated = try store.rotate()
        #expect(rotated.keyId != key.keyId && Self.popKeyItems().count == 1)
        #expect(try MSALKeychainPoPKeyStore(keychainSharingGroup: AppleFixture.group).keyPair().keyId == rotated.keyId)
    }

    @Test func aKeyMSALForIOSAndMacOSMadeIsKept() throws {
        AppleFixture.resetKeychain()
        let made = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        var attributes: [String: Any] = [
            kSecAttrApplicationTag as String: Data("com.microsoft.token.private.key".utf8),
            kSecAttrKeyType as String: kSecAttrKeyTypeRSA as String, kSecAttrKeySizeInBits as String: NSNumber(value: 2048),
            kSecAttrLabel as String: "com.microsoft.token.key", kSecAttrAccessGroup as String: AppleFixture.accessGroup,
        ]
        attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String
        SurfaceKeychain.shared.surfacePlace(kSecClassKey, attributes: attributes, reference: Self.keychainKey(made))
        let key = try MSALKeychainPoPKeyStore(keychainSharingGroup: AppleFixture.group).keyPair()
        let primitives = try made.publicKey.getKeyPrimitives()
        #expect(key.jsonWebKey.contains(Self.base64URLEncode(primitives.modulus)))
        // No entitlement: a typed error.
        AppleFixture.resetKeychain(entitled: false)
        #expect(throws: MSALErrorInfo.self) { try MSALKeychainPoPKeyStore(keychainSharingGroup: AppleFixture.group).keyPair() }
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
