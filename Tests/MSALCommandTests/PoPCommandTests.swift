import Foundation
import MSAL
import MSALTestSupport
import Testing
import MSALEmulator

/// `msal token --pop-url` and `msal graph --pop` through the built binary: the signed request for one URL, the
/// bound token reused for another, and a resource that issues nonces answered once with its nonce.
@Suite("msal and proof of possession", .serialized)
struct PoPCommandTests {
    static func claims(_ jws: String, part: Int) throws -> [String: Any] {
        let piece = String(jws.split(separator: ".")[part])
        let data = try #require(Data(base64Encoded: piece.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            .padding(toLength: (piece.count + 3) / 4 * 4, withPad: "=", startingAt: 0)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func tokenAndGraphWithProofOfPossession() async throws {
        let setup = try await CommandLineTests.Setup.start()
        defer { Task { await setup.emulator.stop() } }
        #expect(try await setup.msal(["login", "--device-code"]).status == 0)
        let me = "\(setup.emulator.httpURL.absoluteString)/v1.0/me"

        let first = try await setup.msal(["token", "--json", "--pop-url", me])
        #expect(first.status == 0, "\(first.stderr)")
        let printed = try #require(try first.json() as? [String: Any])
        #expect(printed["token_type"] as? String == "Pop")
        let signed = try #require(printed["access_token"] as? String)
        let at = try #require(try Self.claims(signed, part: 1)["at"] as? String)
        #expect((try Self.claims(at, part: 1)["cnf"] as? [String: Any])?["kid"] as? String == printed["key_id"] as? String)
        // Another URL and method: the same bound token, signed anew.
        let second = try await setup.msal(["token", "--pop-url", "\(setup.emulator.httpURL.absoluteString)/v1.0/users",
                                           "--pop-method", "post", "--pop-nonce", "n-2"])
        #expect(second.status == 0, "\(second.stderr)")
        let secondClaims = try Self.claims(second.stdout.trimmingCharacters(in: .whitespacesAndNewlines), part: 1)
        #expect(secondClaims["at"] as? String == at && secondClaims["m"] as? String == "POST" && secondClaims["nonce"] as? String == "n-2")
        // status names the bound token's key.
        let status = try await setup.msal(["status"])
        #expect(status.stdout.contains("bound to key \(printed["key_id"] as? String ?? "?")"), "\(status.stdout)")

        // Graph that takes only its own nonces: the first request gets one, the second carries it.
        await setup.emulator.updateConfiguration { $0.requiresPoPServerNonce = true }
        let graph = try await setup.msal(["graph", "/me", "--pop"])
        #expect(graph.status == 0, "\(graph.stderr)")
        #expect((try graph.json() as? [String: Any])?["userPrincipalName"] as? String == setup.emulator.username)

        // Usage errors: a method that is not one, --pop-method without --pop-url, a URL that is not http(s).
        #expect(try await setup.msal(["token", "--pop-url", me, "--pop-method", "FETCH"]).status == 64)
        #expect(try await setup.msal(["token", "--pop-method", "GET"]).status == 64)
        #expect(try await setup.msal(["token", "--pop-url", "ftp://x/y"]).status == 64)
    }

    @Test func theNonceOfAPoPChallengeIsReadSafely() {
        #expect(MSALWWWAuthenticateParameters.popNonce(fromHeaders: ["WWW-Authenticate": "Bearer realm=\"\", PoP nonce=\"abc\""]) == "abc")
        #expect(MSALWWWAuthenticateParameters.popNonce(fromHeaders: ["www-authenticate": "POP nonce=token68ish"]) == "token68ish")
        #expect(MSALWWWAuthenticateParameters.popNonce(fromHeaders: ["WWW-Authenticate": "Bearer nonce=\"abc\""]) == nil)
        #expect(MSALWWWAuthenticateParameters.popNonce(fromHeaders: ["WWW-Authenticate": "PoP nonce=\"\""]) == nil)
        #expect(MSALWWWAuthenticateParameters.popNonce(fromHeaders: ["WWW-Authenticate": "PoP nonce=\"a\\u{1}b\""]) != "a\u{1}b")
    }
}
