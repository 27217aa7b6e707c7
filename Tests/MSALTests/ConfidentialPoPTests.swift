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
        let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALConfidentialClientApplicationConfig(clientId: EmulatorConfiguration.daemonClientId,
                                                             clientCredential: .secret("daemon-secret"),
                                                             authority: try MSALAuthority(url: url))
        config.httpClient = http
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let app = try MSALConfidentialClientApplication(configuration: config)
        let users = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/users")!

        let parameters = MSALClientCredentialParameters(scopes: ConfidentialEmulatorTests.graphDefault)
        parameters.authenticationScheme = MSALAuthenticationSchemePop(httpMethod: .GET, requestUrl: users, nonce: nil,
                                                                      additionalParameters: nil)
        let bound = try await app.acquireTokenForClient(with: parameters)
        #expect(bound.authenticationScheme == "Pop" && bound.tokenSource == .identityProvider)
        #expect(bound.authorizationHeader.hasPrefix("Pop "))
        let (status, names) = try await ConfidentialEmulatorTests().users(emulator, bound.authorizationHeader)
        #expect(status == 200 && names.contains(emulator.username))
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
