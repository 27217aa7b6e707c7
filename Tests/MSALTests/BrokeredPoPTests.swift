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

/// Proof of possession through the brokers: the Apple brokers bind the token to the application's key (`token_type`
/// `Pop` and `req_cnf` in the request, as MSAL for iOS/macOS sends them), and the application signs; the Linux
/// identity broker takes `popParams` and answers a request it signed with its own key, or a token bound to the
/// application's key, or a token whose signed request the application asks with `generateSignedHttpRequest`. Every
/// signed request is accepted by the emulator's Graph, and its token's `cnf.kid` is the thumbprint of the key that
/// signed.
@Suite("Proof of possession through the brokers", .serialized)
struct BrokeredPoPTests {
    static func emulator(_ brokerPoP: EmulatedBrokerPoP = .brokerKey,
                         tokenService: EmulatedPoPBehaviour = .entra) async throws -> IdentityEmulator {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        configuration.brokerProofOfPossession = brokerPoP
        configuration.proofOfPossession = tokenService
        return try await IdentityEmulator.start(configuration)
    }

    static func pop(_ url: URL, method: MSALHttpMethod = .GET) -> MSALAuthenticationSchemePop {
        MSALAuthenticationSchemePop(httpMethod: method, requestUrl: url, nonce: nil, additionalParameters: nil)
    }

    static func me(_ emulator: IdentityEmulator) -> URL { emulator.httpURL.appendingPathComponent("v1.0/me") }
    /// The signed-in user by name: another URL Graph answers for a `User.Read` token.
    static func users(_ emulator: IdentityEmulator) -> URL { emulator.httpURL.appendingPathComponent("v1.0/users/\(emulator.username)") }

    /// The signed request's key id, its token's `cnf.kid`, and the RFC 7638 thumbprint of the key it carries (which
    /// must all be one key), and its token.
    static func binding(_ signedRequest: String) throws -> (headerKid: String?, cnfKid: String?, thumbprint: String, at: String) {
        let header = try ProofOfPossessionTests.claims(signedRequest, part: 0)
        let claims = try ProofOfPossessionTests.claims(signedRequest, part: 1)
        let at = try #require(claims["at"] as? String)
        let jwk = try #require((claims["cnf"] as? [String: Any])?["jwk"] as? [String: Any])
        let e = try #require(jwk["e"] as? String), n = try #require(jwk["n"] as? String)
        let canonical = "{\"e\":\"\(e)\",\"kty\":\"RSA\",\"n\":\"\(n)\"}"
        let thumbprint = MSALSupport.Base64URL.encode(Data(SHA256.hash(data: Data(canonical.utf8))))
        let cnf = try ProofOfPossessionTests.claims(at, part: 1)["cnf"] as? [String: Any]
        return (header["kid"] as? String, cnf?["kid"] as? String, thumbprint, at)
    }

    /// The bound access tokens the application's cache holds.
    static func boundTokens(_ app: MSALPublicClientApplication) throws -> Int {
        let storage = try #require(app.configuration.cacheConfig.storage as? MSALInMemoryTokenCacheStorage)
        let cached = try JSONSerialization.jsonObject(with: storage.data ?? Data()) as? [String: Any] ?? [:]
        return (cached["AccessToken_With_AuthScheme"] as? [String: Any] ?? [:]).count
    }

    /// An application on an Apple device with `options`' broker and `keys`' proof-of-possession key.
    static func appleApp(_ emulator: IdentityEmulator, _ options: MSALBrokerOptions, keys: any MSALPoPKeyStore) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: emulator.clientId, redirectUri: AuthenticatorBrokerTests.redirectUri,
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
        config.httpClient = MSALDefaultHTTPClient.shared
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        config.brokerOptions = options
        config.popKeyStore = keys
        return try MSALPublicClientApplication(configuration: config)
    }

    // MARK: - Apple brokers

    @Test func theSSOExtensionBindsToTheApplicationsKeyForSignInAndRefresh() async throws {
        let emulator = try await Self.emulator()
        defer { Task { await emulator.stop() } }
        let ssoExtension = SSOExtensionTests.Extension(emulator: emulator)
        let keys = MSALInMemoryPoPKeyStore()
        let app = try Self.appleApp(emulator, MSALBrokerOptions(ssoExtension: ssoExtension, bundleIdentifier: "com.example.msaldemo"),
                                    keys: keys)
        let key = try keys.keyPair()

        let interactive = SSOExtensionTests.interactive()
        interactive.authenticationScheme = Self.pop(Self.me(emulator))
        let signedIn = try await app.acquireToken(with: interactive)
        #expect(signedIn.metadata.tokenSource == .broker && signedIn.authenticationScheme == "Pop")
        let login = try #require(ssoExtension.operations.get().first)
        #expect(login.1["token_type"] == "Pop" && login.1["req_cnf"] == key.requestConfirmation)
        let first = try Self.binding(signedIn.accessToken)
        #expect(first.headerKid == key.keyId && first.cnfKid == key.keyId && first.thumbprint == key.keyId)
        #expect(try await ProofOfPossessionTests.call(emulator, Self.me(emulator), authorization: signedIn.authorizationHeader) == 200)
        try await IndependentPoPValidator.validate(signedIn.accessToken, url: Self.me(emulator), emulator: emulator)

        // Another URL: the bound token from the cache, signed anew.
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        silent.authenticationScheme = Self.pop(Self.users(emulator))
        let hit = try await app.acquireTokenSilent(with: silent)
        let hitAt = try Self.binding(hit.accessToken).at
        #expect(hit.metadata.tokenSource == .cache && hitAt == first.at)
        #expect(try await ProofOfPossessionTests.call(emulator, Self.users(emulator), authorization: hit.authorizationHeader) == 200)
        // A forced refresh goes to the extension, bound again.
        silent.forceRefresh = true
        let refreshed = try await app.acquireTokenSilent(with: silent)
        let refresh = try #require(ssoExtension.operations.get().last)
        let refreshedKid = try Self.binding(refreshed.accessToken).cnfKid
        #expect(refreshed.metadata.tokenSource == .broker && refresh.0 == "refresh" && refresh.1["req_cnf"] == key.requestConfirmation)
        #expect(refreshedKid == key.keyId)
        // The bearer token of the same scopes is apart.
        let bearer = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
        #expect(bearer.authenticationScheme == "Bearer" && bearer.accessToken.split(separator: ".").count == 3)
        #expect(try ProofOfPossessionTests.claims(bearer.accessToken, part: 1)["cnf"] == nil)
    }

    @Test func authenticatorBindsToTheApplicationsKey() async throws {
        let emulator = try await Self.emulator()
        defer { Task { await emulator.stop() } }
        let device = AuthenticatorBrokerTests.Device(emulator: emulator)
        let keys = MSALInMemoryPoPKeyStore()
        let app = try Self.appleApp(emulator, MSALBrokerOptions(brokerApp: MSALBrokerApp(opener: device, keyStore: MSALInMemoryBrokerKeyStore()),
                                                                bundleIdentifier: "com.example.msaldemo"), keys: keys)
        let key = try keys.keyPair()

        let interactive = AuthenticatorBrokerTests.interactive()
        interactive.authenticationScheme = Self.pop(Self.me(emulator))
        let signedIn = try await app.acquireToken(with: interactive)
        #expect(signedIn.metadata.tokenSource == .broker && signedIn.authenticationScheme == "Pop")
        let opened = try #require(device.opened.get().first)
        let query = URLComponents(url: opened, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(query.first { $0.name == "token_type" }?.value == "Pop")
        #expect(query.first { $0.name == "req_cnf" }?.value == key.requestConfirmation)
        let first = try Self.binding(signedIn.accessToken)
        #expect(first.cnfKid == key.keyId && first.thumbprint == key.keyId)
        #expect(try await ProofOfPossessionTests.call(emulator, Self.me(emulator), authorization: signedIn.authorizationHeader) == 200)
        try await IndependentPoPValidator.validate(signedIn.accessToken, url: Self.me(emulator), emulator: emulator)
        // Authenticator's refresh token renews the bound token through the application's own flow.
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        silent.authenticationScheme = Self.pop(Self.users(emulator))
        silent.forceRefresh = true
        let refreshed = try await app.acquireTokenSilent(with: silent)
        let refreshedKid = try Self.binding(refreshed.accessToken).cnfKid
        #expect(refreshed.metadata.tokenSource == .identityProvider && refreshedKid == key.keyId)
    }
}

#if os(Linux)
import MSALDBus

/// The Linux identity broker's proof of possession (`popParams`, `generateSignedHttpRequest`) on a private bus.
@Suite("Proof of possession through the Linux identity broker", .serialized,
       .enabled(if: PrivateBus.available || PrivateBus.required))
struct LinuxBrokerPoPTests {
    final class Fixture: @unchecked Sendable {
        let emulator: IdentityEmulator
        let bus: PrivateBus
        let broker: EmulatedIdentityBroker
        let keys = MSALInMemoryPoPKeyStore()

        init(_ brokerPoP: EmulatedBrokerPoP, tokenService: EmulatedPoPBehaviour = .entra) async throws {
            emulator = try await BrokeredPoPTests.emulator(brokerPoP, tokenService: tokenService)
            bus = try await PrivateBus()
            broker = try EmulatedIdentityBroker.start(for: emulator, busAddress: bus.address)
        }

        /// The answers as Microsoft's client reads them (msalruntime reads no `signedHttpRequest`: a PoP answer's
        /// `accessToken` is the broker's signed request).
        struct AsMsalruntimeReads: MSALBrokerTransport {
            let inner: MSALDBusBrokerTransport
            func call(_ method: MSALBrokerMethod, correlationId: UUID, request: Data, interactive: Bool) async throws -> Data {
                let answer = try await inner.call(method, correlationId: correlationId, request: request, interactive: interactive)
                guard var object = try JSONSerialization.jsonObject(with: answer) as? [String: Any],
                      var token = object["brokerTokenResponse"] as? [String: Any] else { return answer }
                token["signedHttpRequest"] = nil
                token["popKeyThumbprint"] = nil
                object["brokerTokenResponse"] = token
                return try JSONSerialization.data(withJSONObject: object)
            }
        }

        var msalruntimeReading = false

        func app() throws -> MSALPublicClientApplication {
            let config = MSALPublicClientApplicationConfig(
                clientId: emulator.clientId, redirectUri: "http://localhost",
                authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
            config.httpClient = MSALDefaultHTTPClient.shared
            config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
            let transport = MSALDBusBrokerTransport(address: bus.address)
            config.brokerOptions = MSALBrokerOptions(transport: msalruntimeReading ? AsMsalruntimeReads(inner: transport) : transport)
            config.popKeyStore = keys
            return try MSALPublicClientApplication(configuration: config)
        }

        func stop() async {
            broker.stop()
            bus.stop()
            await emulator.stop()
        }
    }

    /// A sign-in and a silent call for another URL, each through the broker, each signed request accepted by Graph.
    func signInThenAnotherURL(_ fixture: Fixture) async throws -> (MSALPublicClientApplication, MSALResult, MSALResult) {
        let app = try fixture.app()
        let interactive = BrokeredSignInTests.interactive()
        interactive.authenticationScheme = BrokeredPoPTests.pop(BrokeredPoPTests.me(fixture.emulator))
        let signedIn = try await app.acquireToken(with: interactive)
        #expect(signedIn.metadata.tokenSource == .broker && signedIn.authenticationScheme == "Pop")
        #expect(signedIn.authorizationHeader.hasPrefix("Pop "))
        #expect(try await ProofOfPossessionTests.call(fixture.emulator, BrokeredPoPTests.me(fixture.emulator),
                                                      authorization: signedIn.authorizationHeader) == 200)
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        silent.authenticationScheme = BrokeredPoPTests.pop(BrokeredPoPTests.users(fixture.emulator))
        let second = try await app.acquireTokenSilent(with: silent)
        #expect(second.authenticationScheme == "Pop")
        #expect(try await ProofOfPossessionTests.call(fixture.emulator, BrokeredPoPTests.users(fixture.emulator),
                                                      authorization: second.authorizationHeader) == 200)
        try await IndependentPoPValidator.validate(signedIn.accessToken, url: BrokeredPoPTests.me(fixture.emulator),
                                                   emulator: fixture.emulator)
        try await IndependentPoPValidator.validate(second.accessToken, url: BrokeredPoPTests.users(fixture.emulator),
                                                   emulator: fixture.emulator)
        // Not for another method or URL.
        #expect(try await ProofOfPossessionTests.call(fixture.emulator, BrokeredPoPTests.me(fixture.emulator),
                                                      authorization: second.authorizationHeader) == 401)
        return (app, signedIn, second)
    }

    @Test func theBrokerSignsWithItsOwnKeyAndKeepsItsToken() async throws {
        let fixture = try await Fixture(.brokerKey)
        let (app, signedIn, second) = try await signInThenAnotherURL(fixture)
        let key = try fixture.keys.keyPair()
        let first = try BrokeredPoPTests.binding(signedIn.accessToken)
        let next = try BrokeredPoPTests.binding(second.accessToken)
        // The broker's key, not the application's; the same token for both requests.
        #expect(first.thumbprint != key.keyId && first.cnfKid == first.thumbprint && first.headerKid == first.thumbprint)
        #expect(next.thumbprint == first.thumbprint && next.at == first.at)
        #expect(second.metadata.tokenSource == .broker)
        // A token only the broker can use is not kept by the application.
        let kept = try BrokeredPoPTests.boundTokens(app)
        #expect(kept == 0)
        await fixture.stop()
    }

    @Test func theSignedRequestAsTheAccessTokenIsTakenAsMicrosoftsClientTakesIt() async throws {
        let fixture = try await Fixture(.brokerKey)
        fixture.msalruntimeReading = true
        let (app, signedIn, second) = try await signInThenAnotherURL(fixture)
        let first = try BrokeredPoPTests.binding(signedIn.accessToken)
        let applicationKeyId = try fixture.keys.keyPair().keyId
        let secondAt = try BrokeredPoPTests.binding(second.accessToken).at
        #expect(first.cnfKid == first.thumbprint && first.thumbprint != applicationKeyId && secondAt == first.at)
        #expect(try BrokeredPoPTests.boundTokens(app) == 0)
        await fixture.stop()
    }

    @Test func aTokenWithoutItsSignedRequestIsSignedByGenerateSignedHttpRequest() async throws {
        let fixture = try await Fixture(.brokerKeyWithoutSignedRequest)
        let (_, signedIn, second) = try await signInThenAnotherURL(fixture)
        let first = try BrokeredPoPTests.binding(signedIn.accessToken)
        let applicationKeyId = try fixture.keys.keyPair().keyId
        let secondAt = try BrokeredPoPTests.binding(second.accessToken).at
        #expect(first.cnfKid == first.thumbprint && first.thumbprint != applicationKeyId)
        #expect(secondAt == first.at)
        await fixture.stop()
    }

    @Test func aBrokerThatBindsToTheApplicationsKeyLeavesTheSigningToIt() async throws {
        let fixture = try await Fixture(.requestKey)
        let (app, signedIn, second) = try await signInThenAnotherURL(fixture)
        let key = try fixture.keys.keyPair()
        let first = try BrokeredPoPTests.binding(signedIn.accessToken)
        #expect(first.cnfKid == key.keyId && first.thumbprint == key.keyId && first.headerKid == key.keyId)
        // The bound token is the application's to keep: the second URL is signed from the cache.
        let secondAt = try BrokeredPoPTests.binding(second.accessToken).at
        #expect(second.metadata.tokenSource == .cache && secondAt == first.at)
        #expect(try BrokeredPoPTests.boundTokens(app) == 1)
        await fixture.stop()
    }

    @Test func aBearerAnswerToAProofOfPossessionRequestIsRefused() async throws {
        for mode in [EmulatedBrokerPoP.brokerKey, .requestKey] {
            let fixture = try await Fixture(mode, tokenService: .answersBearer)
            let interactive = BrokeredSignInTests.interactive()
            interactive.authenticationScheme = BrokeredPoPTests.pop(BrokeredPoPTests.me(fixture.emulator))
            do {
                _ = try await fixture.app().acquireToken(with: interactive)
                Issue.record("a bearer answer was taken for a proof-of-possession request (\(mode))")
            } catch let error as MSALErrorInfo {
                #expect(error.errorDescription.lowercased().contains("bearer"), "\(error.errorDescription)")
            }
            await fixture.stop()
        }
    }

    @Test func theRequestCarriesPopParamsAsMsalruntimeWritesThem() throws {
        let key = try MSALPoPKeyPair()
        let binding = PoPBinding(key: key, scheme: BrokeredPoPTests.pop(URL(string: "https://api.contoso.example:8443/v1/items")!,
                                                                        method: .PATCH))
        let popParams = try #require(LinuxBroker.popParameters(binding, homeAccountId: "oid.tid"))
        var parameters = BrokerRequest.AuthParameters(authorizationType: .cachedRefreshToken, authority: "https://login.microsoftonline.com/common",
                                                      clientId: "c", redirectUri: LinuxBroker.redirectUri, scopes: ["User.Read"])
        parameters.popParams = popParams
        let body = try JSONSerialization.jsonObject(with: BrokerRequest.silentToken(parameters).body) as? [String: Any]
        let sent = try #require((body?["authParameters"] as? [String: Any])?["popParams"] as? [String: String])
        #expect(sent == ["authenticationScheme": "pop", "httpMethod": "PATCH", "uriHost": "api.contoso.example:8443",
                         "uriPath": "/v1/items", "homeAccountId": "oid.tid", "kid": key.keyId])
        let generate = try JSONSerialization.jsonObject(with: BrokerRequest.signedHTTPRequest(clientId: "c", popParams: popParams).body) as? [String: Any]
        #expect(generate?["clientId"] as? String == "c" && (generate?["popParams"] as? [String: String])?["uriPath"] == "/v1/items")
    }

    @Test func hostileSignedRequestsInAnswersAreRefused() throws {
        func answer(_ shr: String) -> Data {
            Data(#"{"brokerTokenResponse":{"account":{"homeAccountId":"a.b","username":"u"},"accessToken":"x","idToken":"y","expiresOn":1900000000000,"accessTokenType":1,"signedHttpRequest":"\#(shr)"}}"#.utf8)
        }
        #expect(try BrokerAnswer.token(answer("aGk.aGk.c2ln"), expected: nil, correlationId: nil).signedHttpRequest == "aGk.aGk.c2ln")
        for bad in ["aGk.aGk", "aGk aGk.aGk.x", "aGk.aGk.x\\r\\nX: y", ".aGk.x", "a\\u0022b.c.d"] {
            #expect(try BrokerAnswer.token(answer(bad), expected: nil, correlationId: nil).signedHttpRequest == nil, "\(bad)")
        }
        #expect(throws: MSALErrorInfo.self) { try BrokerAnswer.signedHTTPRequest(Data(#"{"signedHttpRequest":"a b"}"#.utf8), correlationId: nil) }
        #expect(throws: MSALErrorInfo.self) { try BrokerAnswer.signedHTTPRequest(Data(#"{"error":{"status":2,"context":"no"}}"#.utf8), correlationId: nil) }
    }
}
#endif
