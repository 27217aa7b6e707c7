import Crypto
import Foundation
import MSALSupport
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALEmulator
import MSALEmulatorCore

/// Proof-of-possession tokens end to end against the emulator: bound at the token endpoint (`req_cnf` → `cnf.kid`,
/// `token_type` pop) for interactive, device code and silent (refresh) requests, cached under the key apart from
/// bearer tokens, signed anew for each request, and accepted by the emulator's Graph by Microsoft's validator rules;
/// a token type other than the one asked for is refused.
@Suite("Proof of possession", .serialized)
struct ProofOfPossessionTests {
    static func emulator(_ behaviour: EmulatedPoPBehaviour = .entra) async throws -> IdentityEmulator {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        configuration.lifetimes.deviceCodeInterval = 1
        configuration.proofOfPossession = behaviour
        return try await IdentityEmulator.start(configuration)
    }

    static func app(_ emulator: IdentityEmulator, keys: (any MSALPoPKeyStore)? = nil,
                    http: (any MSALHTTPClient)? = nil) throws -> MSALPublicClientApplication {
        let http = http ?? MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAADAuthority(url: emulator.authorityURL))
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        config.popKeyStore = keys
        return try MSALPublicClientApplication(configuration: config, platform: MSALPlatformServices(
            httpClient: http, webAuthenticator: EmulatorAutoApproveAuthenticator(httpClient: http)))
    }

    static func graphMe(_ emulator: IdentityEmulator) -> URL { emulator.httpsURL.appendingPathComponent("v1.0/me") }

    static func pop(_ url: URL, method: MSALHttpMethod = .GET, nonce: String? = nil) -> MSALAuthenticationSchemePop {
        MSALAuthenticationSchemePop(httpMethod: method, requestUrl: url, nonce: nonce, additionalParameters: nil)
    }

    static func claims(_ jwt: String, part: Int) throws -> [String: Any] {
        let pieces = jwt.split(separator: ".").map(String.init)
        let data = try #require(MSALSupport.Base64URL.decode(pieces[part]))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// Sends `authorization` to the emulator's Graph.
    static func call(_ emulator: IdentityEmulator, _ url: URL, authorization: String, method: String = "GET") async throws -> Int {
        let http = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        return try await http.send(MSALHTTPRequest(method: method, url: url, headers: ["Authorization": authorization],
                                                   timeout: 30)).statusCode
    }

    @Test func interactiveThenSilentForAnotherURLReuseTheBoundToken() async throws {
        let emulator = try await Self.emulator()
        defer { Task { await emulator.stop() } }
        let keys = MSALInMemoryPoPKeyStore()
        let app = try Self.app(emulator, keys: keys)
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters())
        parameters.authenticationScheme = Self.pop(Self.graphMe(emulator))
        let result = try await app.acquireToken(with: parameters)
        #expect(result.authenticationScheme == "Pop")
        #expect(result.authorizationHeader == "Pop " + result.accessToken)
        // The signed request: MSAL for iOS/macOS's header and claims; its `at` bound to the key's thumbprint.
        let header = try Self.claims(result.accessToken, part: 0)
        let signed = try Self.claims(result.accessToken, part: 1)
        let key = try keys.keyPair()
        #expect(header["alg"] as? String == "RS256" && header["typ"] as? String == "JWT" && header["kid"] as? String == key.keyId)
        #expect(signed["m"] as? String == "GET" && signed["u"] as? String == "127.0.0.1" && signed["p"] as? String == "/v1.0/me")
        #expect((signed["nonce"] as? String)?.isEmpty == false && signed["ts"] is NSNumber)
        let at = try #require(signed["at"] as? String)
        #expect((try Self.claims(at, part: 1)["cnf"] as? [String: Any])?["kid"] as? String == key.keyId)
        #expect(try await Self.call(emulator, Self.graphMe(emulator), authorization: result.authorizationHeader) == 200)
        // The bound token alone, as a bearer token, is refused.
        #expect(try await Self.call(emulator, Self.graphMe(emulator), authorization: "Bearer " + at) == 401)
        // The signed request is for GET /v1.0/me only: another path is refused.
        let users = emulator.httpsURL.appendingPathComponent("v1.0/users")
        #expect(try await Self.call(emulator, users, authorization: result.authorizationHeader) == 401)

        // Silent, for another URL: the cached bound token, a new signed request; no token request.
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        silent.authenticationScheme = Self.pop(users)
        let again = try await app.acquireTokenSilent(with: silent)
        #expect(again.metadata.tokenSource == .cache)
        #expect(try Self.claims(again.accessToken, part: 1)["at"] as? String == at)
        #expect(try Self.claims(again.accessToken, part: 1)["p"] as? String == "/v1.0/users")
        #expect(try Self.claims(again.accessToken, part: 0)["kid"] as? String == key.keyId)

        // A bearer request is never answered with the bound token, nor the reverse.
        let bearer = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        #expect(bearer.authenticationScheme == "Bearer" && bearer.accessToken != at)
        #expect((try Self.claims(bearer.accessToken, part: 1))["cnf"] == nil)
        // After a bearer hit (which the silent path remembers), the PoP request still gets its bound token.
        _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        let popAfterBearer = try await app.acquireTokenSilent(with: silent)
        #expect(popAfterBearer.metadata.tokenSource == .cache && popAfterBearer.authenticationScheme == "Pop")
        #expect(try Self.claims(popAfterBearer.accessToken, part: 1)["at"] as? String == at)

        // Another key (rotation): the token bound to the old key is not used; a new one is bound to the new key.
        let rotated = try keys.rotate()
        silent.authenticationScheme = Self.pop(Self.graphMe(emulator))
        let afterRotation = try await app.acquireTokenSilent(with: silent)
        #expect(afterRotation.metadata.tokenSource == .identityProvider)
        #expect(try Self.claims(afterRotation.accessToken, part: 0)["kid"] as? String == rotated.keyId)
        #expect(try await Self.call(emulator, Self.graphMe(emulator), authorization: afterRotation.authorizationHeader) == 200)
    }

    @Test func deviceCodeBindsAndAServerNonceIsSigned() async throws {
        let emulator = try await Self.emulator()
        defer { Task { await emulator.stop() } }
        let app = try Self.app(emulator)
        let parameters = MSALDeviceCodeParameters(scopes: ["User.Read"])
        parameters.authenticationScheme = Self.pop(Self.graphMe(emulator), nonce: "server-nonce-1")
        let result = try await app.startDeviceCodeFlow(with: parameters).result()
        #expect(result.authenticationScheme == "Pop")
        #expect(try Self.claims(result.accessToken, part: 1)["nonce"] as? String == "server-nonce-1")
        #expect(try await Self.call(emulator, Self.graphMe(emulator), authorization: result.authorizationHeader) == 200)
        try await IndependentPoPValidator.validate(result.accessToken, url: Self.graphMe(emulator), emulator: emulator)
    }

    @Test func aTokenTypeOtherThanTheOneAskedForIsRefused() async throws {
        let emulator = try await Self.emulator(.answersBearer)
        defer { Task { await emulator.stop() } }
        let app = try Self.app(emulator)
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters())
        parameters.authenticationScheme = Self.pop(Self.graphMe(emulator))
        let error = await #expect(throws: MSALErrorInfo.self) { try await app.acquireToken(with: parameters) }
        #expect(error?.errorDescription.contains("asked for pop, received Bearer") == true)
        // Nothing was stored: the bearer request that follows signs in again rather than finding a token.
        #expect(try app.allAccounts().isEmpty)
    }

    @Test func aBoundTokenWithoutConfirmationIsRefusedByTheResource() async throws {
        let emulator = try await Self.emulator(.popWithoutConfirmation)
        defer { Task { await emulator.stop() } }
        let app = try Self.app(emulator)
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: MSALWebviewParameters())
        parameters.authenticationScheme = Self.pop(Self.graphMe(emulator))
        let result = try await app.acquireToken(with: parameters)
        #expect(try await Self.call(emulator, Self.graphMe(emulator), authorization: result.authorizationHeader) == 401)
    }

    @Test func theKeyAndRequestConfirmationFollowRFC7638() throws {
        let key = try MSALPoPKeyPair()
        let jwk = try #require(JSONSerialization.jsonObject(with: Data(key.jsonWebKey.utf8)) as? [String: String])
        #expect(Array(jwk.keys).sorted() == ["e", "kty", "n"] && jwk["kty"] == "RSA" && jwk["e"] == "AQAB")
        #expect(key.keyId == MSALSupport.Base64URL.encode(Data(SHA256.hash(data: Data(key.jsonWebKey.utf8)))))
        let confirmation = try #require(MSALSupport.Base64URL.decode(key.requestConfirmation))
        #expect(String(decoding: confirmation, as: UTF8.self) == "{\"kid\":\"\(key.keyId)\"}")
        // The same key from its PEM has the same id; a key that is not RSA is a typed error.
        #expect(try MSALPoPKeyPair(pemRepresentation: try #require(key.pemRepresentation)).keyId == key.keyId)
        #expect(throws: MSALErrorInfo.self) { try MSALPoPKeyPair(pemRepresentation: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----") }
        #expect(MSALParameterStringForHttpMethod(.PATCH) == "PATCH" && MSALHttpMethod.allCases.count == 9)
        #expect(MSALAuthenticationSchemeBearer().authenticationScheme == "Bearer" && MSALAuthenticationSchemeBearer().scheme == .bearer)
    }
}
