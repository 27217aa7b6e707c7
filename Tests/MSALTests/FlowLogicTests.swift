import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Flow logic without I/O")
struct FlowLogicTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)
    let policy = CachedTokenPolicy(expirationBuffer: 300, extendedLifetimeEnabled: true)

    @Test func cachedTokenDecisions() {
        func decide(expires: TimeInterval?, refreshOn: TimeInterval? = nil, ext: TimeInterval? = nil,
                    force: Bool = false, claims: Bool = false) -> CachedTokenDecision {
            policy.decide(expiresOn: expires.map { now.addingTimeInterval($0) }, refreshOn: refreshOn.map { now.addingTimeInterval($0) },
                          extendedExpiresOn: ext.map { now.addingTimeInterval($0) }, now: now, forceRefresh: force, hasClaims: claims)
        }
        #expect(decide(expires: nil) == .noCachedToken)
        #expect(decide(expires: 3600) == .useCached)
        #expect(decide(expires: 301) == .useCached)
        #expect(decide(expires: 300) == .refresh(extendedFallback: false))
        #expect(decide(expires: -10, ext: 3600) == .refresh(extendedFallback: true))
        #expect(decide(expires: 3600, refreshOn: -1) == .refreshKeepingFallback)
        #expect(decide(expires: 3600, refreshOn: 10) == .useCached)
        #expect(decide(expires: 3600, force: true) == .refresh(extendedFallback: false))
        #expect(decide(expires: 3600, claims: true) == .refresh(extendedFallback: false))
        let strict = CachedTokenPolicy(expirationBuffer: 300, extendedLifetimeEnabled: false)
        #expect(strict.decide(expiresOn: now.addingTimeInterval(-10), refreshOn: nil, extendedExpiresOn: now.addingTimeInterval(3600),
                              now: now, forceRefresh: false, hasClaims: false) == .refresh(extendedFallback: false))
    }

    @Test func scopeRules() throws {
        #expect(Scopes.requestParameter(["User.Read", "openid"]) == "User.Read openid profile offline_access")
        #expect(Scopes.declined(requested: ["User.Read", "Mail.Read"], granted: ["user.read", "openid"]) == ["Mail.Read"])
        #expect(Scopes.declined(requested: ["https://graph.microsoft.com/.default"], granted: ["User.Read"]).isEmpty)
        #expect(Scopes.resultScopes(["User.Read", "openid", "profile"]) == ["User.Read"])
        #expect(throws: MSALErrorInfo.self) { try Scopes.validate(["offline_access"], correlationId: UUID()) }
        #expect(throws: MSALErrorInfo.self) { try Scopes.validate([], correlationId: UUID()) }
        try Scopes.validate(["api://x/.default"], correlationId: UUID())
    }

    @Test func claimsParameterMergesCapabilities() throws {
        let request = try MSALClaimsRequest(jsonString: #"{"access_token":{"nbf":{"essential":true}}}"#)
        let merged = try #require(ClaimsParameter.build(capabilities: ["cp1"], claimsRequest: request))
        let object = try #require(JSONValue.parseObject(Data(merged.utf8)))
        let accessToken = try #require(object["access_token"]?.objectValue)
        #expect(accessToken["xms_cc"] == .object(["values": .array([.string("cp1")])]))
        #expect(accessToken["nbf"] == .object(["essential": .bool(true)]))
        #expect(ClaimsParameter.build(capabilities: nil, claimsRequest: nil) == nil)
    }

    @Test func claimsRequestAPI() throws {
        let request = MSALClaimsRequest()
        let claim = MSALIndividualClaimRequest(name: "acrs")
        claim.additionalInfo = MSALIndividualClaimRequestAdditionalInfo()
        claim.additionalInfo?.essential = NSNumber(value: true)
        claim.additionalInfo?.values = ["c1"]
        try request.requestClaim(claim, for: .accessToken)
        #expect(request.claimsRequests(for: .accessToken).map(\.name) == ["acrs"])
        #expect(request.jsonString() == #"{"access_token":{"acrs":{"essential":true,"values":["c1"]}}}"#)
        try request.removeClaimRequest(withName: "acrs", target: .accessToken)
        #expect(request.jsonString() == "{}")
        #expect(throws: MSALErrorInfo.self) { try MSALClaimsRequest(jsonString: "[1]") }
    }

    @Test func authorizationResponseChecks() throws {
        let request = AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize")!,
            clientId: "client", scopes: ["User.Read"], state: "S", nonce: "N", codeVerifier: "V", codeChallenge: "C",
            prompt: .login, loginHint: nil, domainHint: nil, claims: nil, responseMode: nil, extraQueryParameters: ["prompt": "none"],
            correlationId: UUID(), instanceAware: false)
        let url = request.url(redirectUri: "http://localhost:1234")
        let query = FormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        #expect(query["prompt"] == "login") // extra parameters never override protocol parameters
        #expect(query["redirect_uri"] == "http://localhost:1234")
        #expect(try request.read(MSALWebAuthenticationResponse(redirectUri: "r", parameters: ["code": "abc", "state": "S"]))
                == .code("abc", clientInfo: nil))
        #expect(throws: MSALErrorInfo.self) { try request.read(MSALWebAuthenticationResponse(redirectUri: "r", parameters: ["code": "abc"])) }
        #expect(throws: MSALErrorInfo.self) { try request.read(MSALWebAuthenticationResponse(redirectUri: "r", parameters: ["state": "S"])) }
        let fragment = MSALWebAuthenticationResponse(redirectUri: "r", callbackURL: URL(string: "http://localhost/#code=x&state=S")!)
        #expect(try request.read(fragment) == .code("x", clientInfo: nil))
        let tokenBody = Dictionary(uniqueKeysWithValues: request.codeGrant(code: "abc", redirectUri: "http://localhost:1234").formParameters)
        #expect(tokenBody["code_verifier"] == "V")
        #expect(tokenBody["redirect_uri"] == "http://localhost:1234")
    }

    @Test func configurationValidation() throws {
        #expect(throws: MSALErrorInfo.self) { try MSALPublicClientApplication(clientId: "") }
        let config = MSALPublicClientApplicationConfig(clientId: "c", redirectUri: "http://example.com/cb", authority: nil)
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        #expect { try MSALPublicClientApplication(configuration: config) } throws: {
            ($0 as? MSALErrorInfo)?.internalCode == .internalErrorInvalidRedirectURI
        }
        let b2c = try MSALB2CAuthority(url: URL(string: "https://contoso.b2clogin.com/tfp/contoso.onmicrosoft.com/B2C_1_susi")!)
        let b2cConfig = MSALPublicClientApplicationConfig(clientId: "c", redirectUri: nil, authority: b2c)
        b2cConfig.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        #expect { try MSALPublicClientApplication(configuration: b2cConfig) } throws: {
            ($0 as? MSALErrorInfo)?.internalCode == .internalErrorFailedAuthorityValidation
        }
        b2cConfig.knownAuthorities = [b2c]
        _ = try MSALPublicClientApplication(configuration: b2cConfig)
        // The application keeps its own copy of the configuration.
        let app = try MSALPublicClientApplication(configuration: b2cConfig)
        b2cConfig.clientId = "changed"
        #expect(app.configuration.clientId == "c")
    }

    @Test func retryAfterParsing() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(TokenEndpointClient.retryAfter(MSALHTTPResponse(statusCode: 429, headers: ["retry-after": "12"]), now: now) == 12)
        let date = TokenEndpointClient.retryAfter(MSALHTTPResponse(statusCode: 429, headers: ["Retry-After": "Tue, 14 Nov 2023 22:14:20 GMT"]), now: now)
        #expect(date == 0 || date == nil || date! >= 0)
        #expect(TokenEndpointClient.retryAfter(MSALHTTPResponse(statusCode: 429), now: now) == nil)
    }
}
