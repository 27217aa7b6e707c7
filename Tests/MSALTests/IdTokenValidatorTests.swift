import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Id token validation")
struct IdTokenValidatorTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let tid = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    let tenantIssuer = "https://login.microsoftonline.com/f645ad92-e38d-4d1a-b510-d1b09a74a8ca/v2.0"
    let templateIssuer = "https://login.microsoftonline.com/{tenantid}/v2.0"

    private func token(_ edit: (inout [String: Any]) -> Void = { _ in }) throws -> IdToken {
        var claims = TestJWT.entraClaims(now: now)
        edit(&claims)
        return try IdToken(raw: TestJWT.make(claims: claims))
    }

    private func failure(_ token: IdToken, issuer: String? = nil, clientId: String = "client-1",
                         nonce: String? = "n-1") -> String? {
        let error = #expect(throws: MSALErrorInfo.self) {
            try IdTokenValidator.validate(token, expectedIssuer: issuer ?? tenantIssuer, clientId: clientId,
                                          nonce: nonce, now: now)
        }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .internalErrorInvalidResponse)
        #expect(error?.errorDescription.contains(token.raw) == false)
        return error?.errorDescription
    }

    @Test("A valid token passes against a tenant issuer and the {tenantid} template")
    func valid() throws {
        let t = try token()
        try IdTokenValidator.validate(t, expectedIssuer: tenantIssuer, clientId: "client-1", nonce: "n-1", now: now)
        try IdTokenValidator.validate(t, expectedIssuer: templateIssuer, clientId: "client-1", nonce: "n-1", now: now)
    }

    @Test("Wrong issuer fails")
    func wrongIssuer() throws {
        let message = failure(try token { $0["iss"] = "https://evil.example.com/\(tid)/v2.0" })
        #expect(message?.hasPrefix("iss") == true)
        #expect(failure(try token { $0["iss"] = tenantIssuer + "/" })?.hasPrefix("iss") == true)
        #expect(failure(try token { $0["iss"] = nil })?.hasPrefix("iss") == true)
    }

    @Test("The template takes the token's own tid")
    func templateSubstitution() throws {
        // A token from another tenant whose iss matches its tid passes the template...
        let other = try token {
            $0["tid"] = "9188040d-6c67-4c5b-b112-36a304b66dad"
            $0["iss"] = "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0"
        }
        try IdTokenValidator.validate(other, expectedIssuer: templateIssuer, clientId: "client-1", nonce: "n-1", now: now)
        // ...but not when iss names a different tenant than tid, nor without tid.
        #expect(failure(try token { $0["tid"] = "9188040d-6c67-4c5b-b112-36a304b66dad" }, issuer: templateIssuer)?.hasPrefix("iss") == true)
        #expect(failure(try token { $0["tid"] = nil }, issuer: templateIssuer)?.hasPrefix("iss") == true)
        #expect(IdTokenValidator.resolvedIssuer(templateIssuer, tid: "a/b") == nil)
    }

    @Test("aud must contain the client id and no untrusted audience; azp must be the client")
    func audience() throws {
        #expect(failure(try token { $0["aud"] = "other-client" })?.hasPrefix("aud") == true)
        #expect(failure(try token { $0["aud"] = nil })?.hasPrefix("aud") == true)
        #expect(failure(try token { $0["aud"] = ["other", "client-1"] })?.hasPrefix("aud") == true)
        #expect(failure(try token { $0["azp"] = "other" })?.hasPrefix("azp") == true)
        let listed = try token { $0["aud"] = ["client-1"]; $0["azp"] = "client-1" }
        try IdTokenValidator.validate(listed, expectedIssuer: tenantIssuer, clientId: "client-1", nonce: "n-1", now: now)
    }

    @Test("exp is checked with the clock skew")
    func expiry() throws {
        let t = now.timeIntervalSince1970
        #expect(failure(try token { $0["exp"] = Int(t) - 600 })?.hasPrefix("exp") == true)
        #expect(failure(try token { $0["exp"] = nil })?.hasPrefix("exp") == true)
        let withinSkew = try token { $0["exp"] = Int(t) - 120 }
        try IdTokenValidator.validate(withinSkew, expectedIssuer: tenantIssuer, clientId: "client-1", nonce: "n-1", now: now)
        #expect(throws: MSALErrorInfo.self) {
            try IdTokenValidator.validate(withinSkew, expectedIssuer: self.tenantIssuer, clientId: "client-1",
                                          nonce: "n-1", now: self.now, clockSkew: 60)
        }
    }

    @Test("nbf may not be too far in the future")
    func notBefore() throws {
        let t = now.timeIntervalSince1970
        #expect(failure(try token { $0["nbf"] = Int(t) + 600 })?.hasPrefix("nbf") == true)
        let withinSkew = try token { $0["nbf"] = Int(t) + 120 }
        try IdTokenValidator.validate(withinSkew, expectedIssuer: tenantIssuer, clientId: "client-1", nonce: "n-1", now: now)
    }

    @Test("nonce must match when one was sent; a refreshed token may carry none")
    func nonce() throws {
        #expect(failure(try token(), nonce: "n-2")?.hasPrefix("nonce") == true)
        #expect(failure(try token { $0["nonce"] = nil })?.hasPrefix("nonce") == true)
        let refreshed = try token { $0["nonce"] = nil }
        try IdTokenValidator.validate(refreshed, expectedIssuer: tenantIssuer, clientId: "client-1", nonce: nil, now: now)
        try IdTokenValidator.validate(try token(), expectedIssuer: tenantIssuer, clientId: "client-1", nonce: nil, now: now)
    }

    @Test("The nonce message does not reveal either nonce")
    func nonceMessage() throws {
        let message = failure(try token { $0["nonce"] = "secret-received" }, nonce: "secret-sent")
        #expect(message?.contains("secret") == false)
    }
}
