import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("PKCE and OAuth randomness")
struct PKCETests {
    @Test("RFC 7636 Appendix B test vector")
    func rfc7636AppendixB() {
        let octets: [UInt8] = [116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186,
                               22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121]
        let verifier = Base64URL.encode(octets)
        #expect(verifier == "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(PKCE.method == "S256")
    }

    @Test("Verifiers are 43 unreserved characters and differ each time")
    func verifierShape() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var seen = Set<String>()
        for _ in 0..<50 {
            let verifier = PKCE.makeVerifier()
            #expect(verifier.count == 43)
            #expect(verifier.allSatisfy { allowed.contains($0) })
            seen.insert(verifier)
        }
        #expect(seen.count == 50)
    }

    @Test("state and nonce carry 256 bits and are unique")
    func stateAndNonce() {
        let state = OAuthRandom.state(), nonce = OAuthRandom.nonce()
        #expect(state.count == 43)
        #expect(nonce.count == 43)
        #expect(state != nonce)
        #expect(Base64URL.decode(state)?.count == 32)
    }

    @Test("Base64URL round-trips and tolerates missing padding")
    func base64URL() {
        for length in 0..<10 {
            let data = Data((0..<length).map { UInt8(250 - $0) })
            let encoded = Base64URL.encode(data)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Base64URL.decode(encoded) == data)
        }
        #expect(Base64URL.decode("YQ") == Data("a".utf8))
        #expect(Base64URL.decode("YQ==") == Data("a".utf8))
        #expect(Base64URL.decode("-_8") == Data([0xFB, 0xFF]))
        #expect(Base64URL.decode("Y") == nil)
        #expect(Base64URL.decode("a b") == nil)
        #expect(Base64URL.decode("é") == nil)
    }
}
