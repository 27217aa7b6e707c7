import Crypto
import Foundation

extension P256.Signing.ECDSASignature {
    /// The ES256 signature of a device's JWT, in either form a client sends: JWS's 64-byte `r || s` (RFC 7518
    /// §3.4), or the X9.62 DER that MSAL for iOS/macOS puts there as `SecKeyCreateSignature` returns it
    /// (`MSIDJWTHelper.m:49-59` signs with `kSecKeyAlgorithmECDSASignatureMessageX962SHA256` and converts nothing),
    /// which Entra accepts; nil for anything else.
    static func fromDeviceJWT(_ signature: Data) -> Self? {
        if signature.count == 64 { return try? Self(rawRepresentation: signature) }
        guard signature.count <= 80 else { return nil }
        return try? Self(derRepresentation: signature)
    }
}
