import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("WWW-Authenticate challenges")
struct WWWAuthenticateTests {
    static let claimsJSON = #"{"access_token":{"nbf":{"essential":true,"value":"1700000000"}}}"#
    static let padded = Data(claimsJSON.utf8).base64EncodedString()

    @Test("Reads Entra's claims challenge: padded base64 claims, realm, authorization_uri")
    func entraChallenge() throws {
        #expect(Self.padded.hasSuffix("="))
        let header = #"Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", "#
            + #"error="insufficient_claims", claims="\#(Self.padded)""#
        let challenges = MSALWWWAuthenticateParameters.parse(header)
        #expect(challenges.count == 1)
        let challenge = try #require(challenges.first)
        #expect(challenge.isBearer)
        #expect(challenge.realm == "")
        #expect(challenge.authorizationURI?.host == "login.microsoftonline.com")
        #expect(challenge.error == "insufficient_claims")
        #expect(challenge.rawClaims == Self.padded)
        #expect(challenge.claims == Self.claimsJSON)
        #expect(challenge.isClaimsChallenge)
        #expect(MSALWWWAuthenticateParameters.claimsChallenge(fromHeaders: ["WWW-Authenticate": header]) == Self.claimsJSON)
    }

    @Test("Decodes claims in base64url without padding, unquoted values, and claims sent as JSON")
    func claimsForms() {
        let unpadded = Base64URL.encode(Data(Self.claimsJSON.utf8))
        #expect(!unpadded.hasSuffix("="))
        for header in [#"Bearer error=insufficient_claims, claims=\#(unpadded)"#,
                       #"Bearer error="insufficient_claims", claims="\#(unpadded)""#,
                       #"Bearer error=insufficient_claims, claims=\#(Self.padded)"#,
                       #"bearer ERROR="Insufficient_Claims", Claims="{\"access_token\":{\"nbf\":{\"essential\":true,\"value\":\"1700000000\"}}}""#] {
            #expect(MSALWWWAuthenticateParameters.claimsChallenge(fromHeaders: ["www-authenticate": header]) == Self.claimsJSON,
                    "\(header)")
        }
    }

    @Test("Several challenges in one header; quoted commas and escapes; token68")
    func multipleChallenges() throws {
        let header = #"Negotiate, Basic realm="a \"quoted\", realm", NTLM TlRMTVNTUAABAAAA==, "#
            + #"Bearer resource_id="00000003-0000-0000-c000-000000000000", error="invalid_token""#
        let challenges = MSALWWWAuthenticateParameters.parse(header)
        #expect(challenges.map(\.scheme) == ["Negotiate", "Basic", "NTLM", "Bearer"])
        #expect(challenges[0].parameters.isEmpty && challenges[0].token68 == nil)
        #expect(challenges[1].realm == #"a "quoted", realm"#)
        #expect(challenges[2].token68 == "TlRMTVNTUAABAAAA==")
        #expect(challenges[3].resource == "00000003-0000-0000-c000-000000000000")
        #expect(challenges[3].error == "invalid_token")
        #expect(!challenges[3].isClaimsChallenge)
        #expect(MSALWWWAuthenticateParameters.claimsChallenge(fromHeaders: ["WWW-Authenticate": header]) == nil)
    }

    @Test("No claims challenge without insufficient_claims, or when the claims are not a JSON object")
    func notAChallenge() {
        let notJSON = Data("not json".utf8).base64EncodedString()
        let array = Data("[1]".utf8).base64EncodedString()
        for header in [#"Bearer error="invalid_token", claims="\#(Self.padded)""#,
                       #"Bearer error="insufficient_claims", claims="\#(notJSON)""#,
                       #"Bearer error="insufficient_claims", claims="\#(array)""#,
                       #"Bearer error="insufficient_claims", claims="%%%""#,
                       #"Bearer error="insufficient_claims""#] {
            #expect(MSALWWWAuthenticateParameters.claimsChallenge(fromHeaders: ["WWW-Authenticate": header]) == nil, "\(header)")
        }
        #expect(MSALWWWAuthenticateParameters.claimsChallenge(fromHeaders: ["Content-Type": "application/json"]) == nil)
    }

    @Test("Hostile input: unterminated quotes, junk, stray escapes, huge values stay bounded", arguments: [
        #"Bearer error="unterminated"#, "\"\"\"", ",,,,", "=", "Bearer ==,==", #"Bearer a="\"#, "\u{0}\u{1}Bearer x=y",
        "Bearer error=, claims=", "Bearer \u{FFFF}=1", String(repeating: "A, ", count: 1000),
        String(repeating: "Bearer " + String(repeating: "p=1, ", count: 100), count: 3),
    ])
    func hostile(_ header: String) {
        let challenges = MSALWWWAuthenticateParameters.parse(header)
        #expect(challenges.count <= 16)
        #expect(challenges.allSatisfy { $0.parameters.count <= 64 && !$0.scheme.isEmpty })
    }

    @Test("A header over 64 KiB yields no challenge")
    func oversized() {
        let header = #"Bearer error="insufficient_claims", claims=""# + String(repeating: "A", count: 70_000) + "\""
        #expect(MSALWWWAuthenticateParameters.parse(header).isEmpty)
    }

    @Test("The description names the scheme and parameters, not their values")
    func description() throws {
        let challenge = try #require(MSALWWWAuthenticateParameters.parse(#"Bearer error="secret-ish""#).first)
        #expect(challenge.description.contains("error"))
        #expect(!challenge.description.contains("secret-ish"))
    }
}
