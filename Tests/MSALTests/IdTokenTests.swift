import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Id token decoding")
struct IdTokenTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("Decodes the claims MSAL reads")
    func decodes() throws {
        let token = try IdToken(raw: TestJWT.make(claims: TestJWT.entraClaims(now: now)))
        #expect(token.iss == "https://login.microsoftonline.com/f645ad92-e38d-4d1a-b510-d1b09a74a8ca/v2.0")
        #expect(token.aud == ["client-1"])
        #expect(token.exp == Date(timeIntervalSince1970: 1_700_003_600))
        #expect(token.nbf == Date(timeIntervalSince1970: 1_699_999_990))
        #expect(token.iat == Date(timeIntervalSince1970: 1_699_999_990))
        #expect(token.nonce == "n-1")
        #expect(token.tid == "f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
        #expect(token.oid == "9f4880d8-80ba-4c40-97bc-f7a23c703084")
        #expect(token.sub == "subject-1")
        #expect(token.localAccountId == token.oid)
        #expect(token.preferredUsername == "user@contoso.com")
        #expect(token.name == "User One")
        #expect(token.algorithm == "RS256")
        #expect(token.keyId == "k1")
        #expect(token.policy == nil)
    }

    @Test("aud may be an array; user name falls back to upn, then email; B2C policy from tfp or acr")
    func fallbacks() throws {
        let upn = try IdToken(raw: TestJWT.make(claims: ["aud": ["a", "client-1"], "upn": "u@x", "email": "e@x", "tfp": "B2C_1_signin"]))
        #expect(upn.aud == ["a", "client-1"])
        #expect(upn.preferredUsername == "u@x")
        #expect(upn.policy == "B2C_1_signin")
        let email = try IdToken(raw: TestJWT.make(claims: ["email": "e@x", "acr": "b2c_1_edit", "sub": "s"]))
        #expect(email.preferredUsername == "e@x")
        #expect(email.policy == "b2c_1_edit")
        #expect(email.aud.isEmpty)
        #expect(email.localAccountId == "s")
    }

    @Test("Accepts two-segment tokens and string numbers")
    func twoSegments() throws {
        let raw = TestJWT.segment(["alg": "none"]) + "." + TestJWT.segment(["exp": "1700000000"])
        let token = try IdToken(raw: raw)
        #expect(token.exp == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(token.algorithm == "none")
    }

    @Test("Junk is a typed error, never a crash", arguments: [
        "", "abc", "a.b.c.d", "!!!.###.x", "..",
        TestJWT.segment(["alg": "RS256"]) + ".%%%.sig",
        TestJWT.segment(["alg": "RS256"]) + "." + Base64URL.encode(Data("[1,2,3]".utf8)) + ".sig",
        TestJWT.segment(["alg": "RS256"]) + "." + Base64URL.encode(Data("\"text\"".utf8)) + ".sig",
        TestJWT.segment(["alg": "RS256"]) + "." + Base64URL.encode(Data("{not json".utf8)) + ".sig",
        Base64URL.encode(Data("[]".utf8)) + "." + TestJWT.segment(["sub": "s"]) + ".sig",
    ])
    func junk(_ raw: String) {
        let error = #expect(throws: MSALErrorInfo.self) { try IdToken(raw: raw) }
        #expect(error?.internalCode == .internalErrorInvalidResponse)
    }
}
