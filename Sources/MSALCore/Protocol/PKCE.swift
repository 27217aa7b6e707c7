import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636), always with the `S256` method.
///
/// The verifier is 32 bytes from the system's cryptographically secure generator, base64url-encoded to 43
/// characters of the unreserved set (§4.1, §7.1). MSAL never falls back to the `plain` method (§7.2).
package enum PKCE {
    /// The only challenge method MSAL sends (`code_challenge_method`).
    static let method = "S256"

    /// A fresh code verifier: 43 characters from `[A-Za-z0-9-_]`.
    static func makeVerifier() -> String {
        OAuthRandom.base64URLBytes(count: 32)
    }

    /// The S256 challenge for `verifier`: BASE64URL(SHA256(ASCII(verifier))), without padding (§4.2).
    package static func challenge(for verifier: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Data(verifier.utf8))))
    }
}

/// High-entropy random values for OAuth requests.
enum OAuthRandom {
    /// A fresh `state` value (256 bits, base64url): ties the authorization response to its request.
    static func state() -> String { base64URLBytes(count: 32) }

    /// A fresh `nonce` value (256 bits, base64url): ties the id token to its request.
    static func nonce() -> String { base64URLBytes(count: 32) }

    /// `count` bytes from `SystemRandomNumberGenerator`, base64url-encoded without padding.
    static func base64URLBytes(count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        for _ in 0..<count { bytes.append(UInt8.random(in: .min ... .max, using: &generator)) }
        return Base64URL.encode(bytes)
    }
}
