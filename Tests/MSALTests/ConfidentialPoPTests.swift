import Foundation
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALEmulator
import MSALEmulatorCore

/// Proof of possession for a confidential client (client credentials), as MSAL.NET's signed-request PoP: the app
/// token bound to the application's key, cached under it apart from the bearer app token, a new signed request for
/// each call, accepted by the emulator's Graph.
@Suite("Proof of possession for confidential clients", .serialized)
struct ConfidentialPoPTests {
    @Test func anAppTokenIsBoundCachedUnderItsKeyAndSignedPerRequest() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let app = try ConfidentialEmulatorTests().makeApp(emulator, clientId: EmulatorConfiguration.daemonClientId,
                                                          credential: .secret("daemon-secret"), http: http)
        let users = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/users")!

        let parameters = MSALClientCredentialParameters(scopes: ConfidentialEmulatorTests.graphDefault)
        parameters.authenticationScheme = MSALAuthenticationSchemePop(httpMethod: .GET, requestUrl: users, nonce: nil,
                                                                      additionalParameters: nil)
        let bound = try await app.acquireTokenForClient(with: parameters)
        #expect(bound.authenticationScheme == "Pop" && bound.tokenSource == .identityProvider)
        #expect(bound.authorizationHeader.hasPrefix("Pop "))
        let (status, names) = try await ConfidentialEmulatorTests().users(emulator, bound.authorizationHeader)
        #expect(status == 200 && names.contains(emulator.username))
        try await IndependentPoPValidator.validate(bound.accessToken, url: users, emulator: emulator)
        let at = try #require(try ProofOfPossessionTests.claims(bound.accessToken, part: 1)["at"] as? String)
        #expect((try ProofOfPossessionTests.claims(at, part: 1)["cnf"] as? [String: Any])?["kid"] != nil)

        // Again: the bound token from the cache (no request), a new signed request.
        http.reset()
        let again = try await app.acquireTokenForClient(with: parameters)
        #expect(again.tokenSource == .cache && http.paths.isEmpty)
        #expect(try ProofOfPossessionTests.claims(again.accessToken, part: 1)["at"] as? String == at)
        #expect(again.accessToken != bound.accessToken)

        // A bearer request is never answered with the bound token.
        let bearer = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: ConfidentialEmulatorTests.graphDefault))
        #expect(bearer.authenticationScheme == "Bearer" && bearer.accessToken != at)
        #expect(try await ConfidentialEmulatorTests().users(emulator, "Bearer " + at).0 == 401)
        let popAfterBearer = try await app.acquireTokenForClient(with: parameters)
        #expect(popAfterBearer.authenticationScheme == "Pop" && popAfterBearer.tokenSource == .cache)

        // Removing the client's tokens removes the bound one too.
        try await app.removeTokensForClient()
        http.reset()
        #expect(try await app.acquireTokenForClient(with: parameters).tokenSource == .identityProvider)
    }
}

/// Proof of possession on behalf of a user and for a web app's signed-in user, as MSAL.NET's signed-request PoP:
/// the token bound to the application's key, cached under the key (and, on behalf of, the incoming assertion), a
/// new signed request per call, accepted by the emulator's Graph.
@Suite("Proof of possession on behalf of a user and for web apps", .serialized)
struct ConfidentialUserPoPTests {
    static func pop(_ url: URL) -> MSALAuthenticationSchemePop {
        MSALAuthenticationSchemePop(httpMethod: .GET, requestUrl: url, nonce: nil, additionalParameters: nil)
    }

    static func boundKid(_ signedRequest: String) throws -> String? {
        let at = try #require(try ProofOfPossessionTests.claims(signedRequest, part: 1)["at"] as? String)
        return (try ProofOfPossessionTests.claims(at, part: 1)["cnf"] as? [String: Any])?["kid"] as? String
    }

    @Test func onBehalfOfBindsAndIsCachedUnderTheKeyAndTheAssertion() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let (client, user) = try await ConfidentialEmulatorTests.signInForTheMiddleTier(emulator)
        let http = MSALRecordingHTTPClient()
        let keys = MSALInMemoryPoPKeyStore()
        let middle = try ConfidentialEmulatorTests().makeApp(emulator, clientId: EmulatorConfiguration.middleTierClientId,
                                                             credential: .secret("middle-tier-secret"), http: http,
                                                             popKeyStore: keys)
        let me = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/me")!
        let parameters = MSALOnBehalfOfParameters(scopes: ["https://graph.microsoft.com/User.Read"], userAssertion: user.accessToken)
        parameters.authenticationScheme = Self.pop(me)
        let bound = try await middle.acquireTokenOnBehalfOf(with: parameters)
        #expect(bound.authenticationScheme == "Pop" && bound.authorizationHeader.hasPrefix("Pop "))
        #expect(try Self.boundKid(bound.accessToken) == (try keys.keyPair().keyId))
        #expect(try await ProofOfPossessionTests.call(emulator, me, authorization: bound.authorizationHeader) == 200)
        try await IndependentPoPValidator.validate(bound.accessToken, url: me, emulator: emulator)
        let body = String(decoding: http.requests.last { $0.url.path.hasSuffix("/token") }?.body ?? Data(), as: UTF8.self)
        #expect(body.contains("token_type=pop") && body.contains("req_cnf="))

        // Again with the same assertion: the bound token from the cache, signed anew; no request.
        http.reset()
        let again = try await middle.acquireTokenOnBehalfOf(with: parameters)
        #expect(http.tokenRequests == 0 && again.accessToken != bound.accessToken)
        let boundAt = try ProofOfPossessionTests.claims(bound.accessToken, part: 1)["at"] as? String
        #expect(try ProofOfPossessionTests.claims(again.accessToken, part: 1)["at"] as? String == boundAt)
        // A bearer request for the same assertion never gets the bound token.
        let bearer = try await middle.acquireTokenOnBehalfOf(with: MSALOnBehalfOfParameters(
            scopes: ["https://graph.microsoft.com/User.Read"], userAssertion: user.accessToken))
        #expect(bearer.authenticationScheme == "Bearer" && bearer.accessToken != boundAt)
        // Another incoming assertion (the user again, a new token) does not find the first one's bound token.
        let forced = MSALSilentTokenParameters(scopes: [ConfidentialEmulatorTests.middleTierScope], account: user.account)
        forced.forceRefresh = true
        let other = try await client.acquireTokenSilent(with: forced)
        let otherParameters = MSALOnBehalfOfParameters(scopes: ["https://graph.microsoft.com/User.Read"], userAssertion: other.accessToken)
        otherParameters.authenticationScheme = Self.pop(me)
        http.reset()
        _ = try await middle.acquireTokenOnBehalfOf(with: otherParameters)
        #expect(http.tokenRequests == 1)
    }

    @Test func aWebAppBindsTheCodesTokenAndLaterSilentOnes() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let keys = MSALInMemoryPoPKeyStore()
        let app = try ConfidentialEmulatorTests().makeApp(emulator, clientId: EmulatorConfiguration.webAppClientId,
                                                          credential: .secret("emulator-secret"), http: http,
                                                          popKeyStore: keys)
        let flow = try await app.startAuthorizationCodeFlow(with: MSALAuthorizationCodeParameters(
            scopes: ["User.Read"], redirectUri: "http://localhost/callback"))
        let response = try await WebAppEmulatorTests().browse(flow.authorizationURL)
        let me = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/me")!
        let signedIn = try await app.acquireToken(byAuthorizationCodeFlow: flow, response: response,
                                                  authenticationScheme: Self.pop(me))
        #expect(signedIn.authenticationScheme == "Pop")
        #expect(try Self.boundKid(signedIn.accessToken) == (try keys.keyPair().keyId))
        #expect(try await ProofOfPossessionTests.call(emulator, me, authorization: signedIn.authorizationHeader) == 200)
        try await IndependentPoPValidator.validate(signedIn.accessToken, url: me, emulator: emulator)

        // Silent for another URL: the cached bound token, signed for that URL.
        let users = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/users/\(emulator.username)")!
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        silent.authenticationScheme = Self.pop(users)
        http.reset()
        let hit = try await app.acquireTokenSilent(with: silent)
        #expect(hit.metadata.tokenSource == .cache && http.tokenRequests == 0)
        #expect(try await ProofOfPossessionTests.call(emulator, users, authorization: hit.authorizationHeader) == 200)
        // A forced refresh binds again, with the app's secret.
        silent.forceRefresh = true
        let refreshed = try await app.acquireTokenSilent(with: silent)
        let refreshedKid = try Self.boundKid(refreshed.accessToken)
        let keyId = try keys.keyPair().keyId
        #expect(refreshed.metadata.tokenSource == .identityProvider && refreshedKid == keyId)
    }
}
