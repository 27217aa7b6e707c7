import Crypto
import Foundation
import Testing
@testable import MSALEmulatorCore

/// A device's ES256 signature is read in JWS's raw form and in the X9.62 DER form MSAL for iOS/macOS sends
/// (`MSIDJWTHelper.m:49-59`), as Entra reads both; anything else is refused.
@Suite("Device JWT signatures")
struct DeviceSignatureTests {
    @Test func rawAndDERFormsVerifyAndOthersAreRefused() throws {
        let key = P256.Signing.PrivateKey()
        let message = Data("header.claims".utf8)
        let signature = try key.signature(for: message)
        for form in [signature.rawRepresentation, signature.derRepresentation] {
            let read = try #require(P256.Signing.ECDSASignature.fromDeviceJWT(form))
            #expect(key.publicKey.isValidSignature(read, for: message))
        }
        #expect(P256.Signing.ECDSASignature.fromDeviceJWT(Data(repeating: 1, count: 63)) == nil)
        #expect(P256.Signing.ECDSASignature.fromDeviceJWT(Data(repeating: 0x30, count: 200)) == nil)
        #expect(P256.Signing.ECDSASignature.fromDeviceJWT(Data()) == nil)
    }
}
