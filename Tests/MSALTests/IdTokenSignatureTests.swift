import _CryptoExtras
import Crypto
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Id token signature (RS256 against a JWKS)")
struct IdTokenSignatureTests {
    static let key1 = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let key2 = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func verify(_ raw: String, jwks: Data) throws {
        try IdTokenSignatureVerifier(jwks: jwks).verify(IdToken(raw: raw))
    }

    private func expectRejected(_ raw: String, jwks: Data, mentioning text: String) {
        let error = #expect(throws: MSALErrorInfo.self) { try verify(raw, jwks: jwks) }
        #expect(error?.internalCode == .internalErrorInvalidResponse)
        #expect(error?.errorDescription.contains(text) == true, "\(error?.errorDescription ?? "")")
    }

    @Test("A token signed by the key its kid names verifies")
    func verifies() throws {
        let jwks = TestJWT.jwks([("k1", Self.key1), ("k2", Self.key2)],
                                extra: [["kty": "EC", "kid": "ec", "crv": "P-256", "x": "AA", "y": "AA"]])
        try verify(TestJWT.make(claims: TestJWT.entraClaims(now: now), signer: Self.key1), jwks: jwks)
        let second = TestJWT.make(claims: ["sub": "s"], header: ["alg": "RS256", "kid": "k2"], signer: Self.key2)
        try verify(second, jwks: jwks)
    }

    @Test("A token without kid verifies only against a single-key set")
    func noKid() throws {
        let raw = TestJWT.make(claims: ["sub": "s"], header: ["alg": "RS256"], signer: Self.key1)
        try verify(raw, jwks: TestJWT.jwks([(nil, Self.key1)]))
        expectRejected(raw, jwks: TestJWT.jwks([("k1", Self.key1), ("k2", Self.key2)]), mentioning: "kid")
    }

    @Test("Tampered payloads, wrong keys and unknown kids are rejected")
    func rejectsBadSignatures() {
        let jwks = TestJWT.jwks([("k1", Self.key1)])
        let good = TestJWT.make(claims: TestJWT.entraClaims(now: now), signer: Self.key1)
        let parts = good.split(separator: ".").map(String.init)
        let forged = parts[0] + "." + TestJWT.segment(TestJWT.entraClaims(now: now, clientId: "evil")) + "." + parts[2]
        expectRejected(forged, jwks: jwks, mentioning: "does not verify")
        let wrongKey = TestJWT.make(claims: ["sub": "s"], header: ["alg": "RS256", "kid": "k1"], signer: Self.key2)
        expectRejected(wrongKey, jwks: jwks, mentioning: "does not verify")
        let unknownKid = TestJWT.make(claims: ["sub": "s"], header: ["alg": "RS256", "kid": "zz"], signer: Self.key1)
        expectRejected(unknownKid, jwks: jwks, mentioning: "kid")
        expectRejected(parts[0] + "." + parts[1] + ".", jwks: jwks, mentioning: "not signed")
        expectRejected(parts[0] + "." + parts[1], jwks: jwks, mentioning: "not signed")
    }

    @Test("alg none and other algorithms are rejected", arguments: ["none", "HS256", "RS512", "ES256", "rs256"])
    func rejectsAlgorithms(_ alg: String) {
        let raw = TestJWT.make(claims: ["sub": "s"], header: ["alg": alg, "kid": "k1"], signer: Self.key1)
        expectRejected(raw, jwks: TestJWT.jwks([("k1", Self.key1)]), mentioning: "algorithm")
    }

    @Test("A token without alg is rejected")
    func missingAlg() {
        let raw = TestJWT.make(claims: ["sub": "s"], header: ["kid": "k1"], signer: Self.key1)
        expectRejected(raw, jwks: TestJWT.jwks([("k1", Self.key1)]), mentioning: "alg")
    }

    @Test("Unusable key sets are rejected", arguments: [
        "{}", "[]", "not json", #"{"keys":[]}"#, #"{"keys":[{"kty":"EC","crv":"P-256"}]}"#,
        #"{"keys":[{"kty":"RSA","n":"%%","e":"AQAB"}]}"#, #"{"keys":[{"kty":"RSA","use":"enc","n":"AQAB","e":"AQAB"}]}"#,
    ])
    func badJWKS(_ text: String) {
        let error = #expect(throws: MSALErrorInfo.self) { try IdTokenSignatureVerifier(jwks: Data(text.utf8)) }
        #expect(error?.internalCode == .internalErrorInvalidResponse)
    }

    @Test("ES256 verifies only when the authority advertises it; a P-256 signature does not pass for RS256")
    func es256WhenAdvertised() throws {
        let key = P256.Signing.PrivateKey()
        let raw = key.publicKey.rawRepresentation
        let jwks = try JSONSerialization.data(withJSONObject: ["keys": [[
            "kty": "EC", "crv": "P-256", "use": "sig", "kid": "ec1",
            "x": Base64URL.encode(raw.prefix(32)), "y": Base64URL.encode(raw.suffix(32)),
        ]]])
        let input = TestJWT.segment(["alg": "ES256", "kid": "ec1"]) + "." + TestJWT.segment(["sub": "s"])
        let signature = try key.signature(for: Data(input.utf8)).rawRepresentation
        let token = try IdToken(raw: input + "." + Base64URL.encode(signature))
        let verifier = try IdTokenSignatureVerifier(jwks: jwks)
        try verifier.verify(token, algorithms: ["RS256", "ES256"])
        #expect(throws: MSALErrorInfo.self) { try verifier.verify(token) }
        let tampered = try IdToken(raw: TestJWT.segment(["alg": "ES256", "kid": "ec1"]) + "." + TestJWT.segment(["sub": "t"])
                                   + "." + Base64URL.encode(signature))
        #expect(throws: MSALErrorInfo.self) { try verifier.verify(tampered, algorithms: ["RS256", "ES256"]) }
    }
}
