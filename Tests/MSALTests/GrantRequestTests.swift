import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// The exact form bodies of the token grants MSAL sends.
@Suite("Grant requests")
struct GrantRequestTests {
    /// Extra parameters that try to replace every protocol parameter, plus two of the application's own.
    let hostileExtras: [String: String] = [
        "client_id": "evil", "grant_type": "password", "client_info": "0", "refresh_token": "stolen",
        "device_code": "other", "code": "other", "code_verifier": "other", "redirect_uri": "https://evil",
        "scope": "evil", "claims": "{}", "zeta": "z", "alpha": "a",
    ]

    func names(_ pairs: [(String, String)]) -> [String] { pairs.map(\.0) }

    @Test func refreshTokenGrant() {
        let grant = RefreshTokenGrantRequest(clientId: "client", refreshToken: "RT", scopes: ["User.Read"],
                                             claims: #"{"access_token":{}}"#, extraParameters: hostileExtras)
        let pairs = grant.formParameters
        // Protocol names keep their values; other extras follow in key order.
        #expect(names(pairs) == ["client_id", "grant_type", "client_info", "refresh_token", "scope", "claims", "alpha",
                                 "code", "code_verifier", "device_code", "redirect_uri", "zeta"])
        #expect(Array(pairs.map(\.1).prefix(7)) == ["client", "refresh_token", "1", "RT", "User.Read openid profile offline_access",
                                                    #"{"access_token":{}}"#, "a"])

        let plain = RefreshTokenGrantRequest(clientId: "client", refreshToken: "RT", scopes: ["User.Read"], claims: nil,
                                             extraParameters: [:])
        #expect(names(plain.formParameters) == ["client_id", "grant_type", "client_info", "refresh_token", "scope"])
    }

    @Test func refreshClaimsMergeCapabilitiesWithTheRequestsClaims() throws {
        #expect(RefreshTokenGrantRequest.claims(capabilities: nil, requested: nil) == nil)
        #expect(RefreshTokenGrantRequest.claims(capabilities: [], requested: "not json") == "not json")
        let capabilitiesOnly = try #require(RefreshTokenGrantRequest.claims(capabilities: ["cp1"], requested: nil))
        #expect(JSONValue.parseObject(Data(capabilitiesOnly.utf8))
                == ["access_token": .object(["xms_cc": .object(["values": .array([.string("cp1")])])])])

        let requested = #"{"access_token":{"nbf":{"essential":true,"value":"1"}},"id_token":{"auth_time":null}}"#
        let merged = try #require(RefreshTokenGrantRequest.claims(capabilities: ["cp1", "llt"], requested: requested))
        let object = try #require(JSONValue.parseObject(Data(merged.utf8)))
        let accessToken = try #require(object["access_token"]?.objectValue)
        #expect(accessToken["xms_cc"] == .object(["values": .array([.string("cp1"), .string("llt")])]))
        #expect(accessToken["nbf"] == .object(["essential": .bool(true), "value": .string("1")]))
        #expect(object["id_token"] == .object(["auth_time": .null]))

        // The request's claims win per claim; claims that are not JSON are sent as given.
        let overriding = try #require(RefreshTokenGrantRequest.claims(
            capabilities: ["cp1"], requested: #"{"access_token":{"xms_cc":{"values":["cp2"]}}}"#))
        #expect(JSONValue.parseObject(Data(overriding.utf8))?["access_token"]?.objectValue?["xms_cc"]
                == .object(["values": .array([.string("cp2")])]))
        #expect(RefreshTokenGrantRequest.claims(capabilities: ["cp1"], requested: "not json") == "not json")
    }

    @Test func deviceAuthorizationRequest() {
        let request = DeviceAuthorizationRequest(clientId: "client", scopes: ["User.Read"], claims: "{}",
                                                 extraParameters: hostileExtras)
        let pairs = request.formParameters
        // Only names the request itself uses are protected here: an extra "code" is the application's business.
        #expect(names(pairs) == ["client_id", "scope", "claims", "alpha", "client_info", "code", "code_verifier",
                                 "device_code", "grant_type", "redirect_uri", "refresh_token", "zeta"])
        #expect(Array(pairs.map(\.1).prefix(3)) == ["client", "User.Read openid profile offline_access", "{}"])
    }

    @Test func deviceCodeGrant() {
        let grant = DeviceCodeGrantRequest(clientId: "client", deviceCode: "DC", claims: nil,
                                           extraParameters: ["alpha": "a", "grant_type": "x", "code": "y", "client_id": "z"])
        let pairs = grant.formParameters
        #expect(names(pairs) == ["client_id", "grant_type", "client_info", "device_code", "code", "alpha"])
        #expect(pairs.map(\.1) == ["client", "urn:ietf:params:oauth:grant-type:device_code", "1", "DC", "DC", "a"])
        let withClaims = DeviceCodeGrantRequest(clientId: "client", deviceCode: "DC", claims: "{}", extraParameters: [:])
        #expect(names(withClaims.formParameters) == ["client_id", "grant_type", "client_info", "device_code", "code", "claims"])
    }

    @Test func authorizationCodeGrant() {
        let grant = AuthorizationCodeGrantRequest(clientId: "client", code: "C", codeVerifier: "V",
                                                  redirectUri: "http://localhost:1234", scopes: ["User.Read"], claims: "{}")
        let pairs = grant.formParameters
        #expect(names(pairs) == ["client_id", "grant_type", "client_info", "code_verifier", "code", "redirect_uri", "scope", "claims"])
        #expect(pairs.map(\.1) == ["client", "authorization_code", "1", "V", "C", "http://localhost:1234",
                                   "User.Read openid profile offline_access", "{}"])
    }

    @Test func authorizationRequestRedeemsItsCodeWithItsVerifierScopesAndClaims() {
        let request = AuthorizationRequest(
            authorizationEndpoint: URL(string: "https://login.example/authorize")!, clientId: "client",
            scopes: ["User.Read", "Mail.Read"], state: "S", nonce: "N", codeVerifier: "V", codeChallenge: "CH",
            prompt: .selectAccount, loginHint: nil, domainHint: nil, claims: #"{"id_token":{}}"#, responseMode: nil,
            extraQueryParameters: ["grant_type": "password", "alpha": "a"], correlationId: UUID(), instanceAware: false)
        let pairs = request.codeGrant(code: "C", redirectUri: "http://localhost:1").formParameters
        #expect(names(pairs) == ["client_id", "grant_type", "client_info", "code_verifier", "code", "redirect_uri", "scope", "claims"])
        #expect(pairs.map(\.1) == ["client", "authorization_code", "1", "V", "C", "http://localhost:1",
                                   "User.Read Mail.Read openid profile offline_access", #"{"id_token":{}}"#])
    }
}
