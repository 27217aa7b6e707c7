import Foundation
import Testing
import MSAL
import MSALTesting
import MSALEmulator
import MSALEmulatorCore
import MSALTestSupport
@testable import MSALCore

/// Nested app authentication: a nested app signs in through its hub, the requests carrying the hub's parameters as
/// MSAL for iOS/macOS sends them, against the emulator's nested app (hosted by the demo app).
@Suite("Nested app authentication", .serialized)
struct NestedAppAuthenticationTests {
    static let nested = EmulatorConfiguration.nestedAppClientId
    static let hub = EmulatorConfiguration.demoClientId
    static let nestedRedirect = "brk-\(EmulatorConfiguration.demoClientId)://localhost"

    static func form(_ request: MSALHTTPRequest) -> [String: String] {
        var result: [String: String] = [:]
        for pair in String(decoding: request.body ?? Data(), as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { result[parts[0]] = parts[1] }
        }
        return result
    }

    @Test func theSwappedPairsAreMSALsAndOnlyBothTurnItOn() throws {
        // As MSAL's own test (`MSIDRequestControllerFactoryTests.m:797-818`): a `brk-` nested redirect swaps the pairs.
        let config = MSALPublicClientApplicationConfig(clientId: "my_client_id", redirectUri: "http://localhost", authority: nil,
                                                       nestedAuthBrokerClientId: "other_client_id",
                                                       nestedAuthBrokerRedirectUri: "brk-other_redirect_uri")
        let settings = try EngineSettings(config)
        #expect(settings.clientId == "other_client_id" && settings.redirectUri == "brk-other_redirect_uri")
        #expect(settings.nestedAuth?.clientId == "my_client_id" && settings.nestedAuth?.redirectUri == "http://localhost")
        #expect(settings.refreshTokenClientId == "my_client_id")
        // One of the two alone: not a nested app.
        config.nestedAuthBrokerRedirectUri = "  "
        #expect(try EngineSettings(config).nestedAuth == nil)
        #expect(try EngineSettings(config).nestedAuthParameters.isEmpty)
    }

    @Test func aNestedAppSignsInThroughItsHubAndRefreshesWithIt() async throws {
        let emulator = try await ProofOfPossessionTests.emulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient(forwardingTo: MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM],
                                                                           environment: [:]))
        let storage = MSALInMemoryTokenCacheStorage()
        // The hub's pair first and the nested pair second, with its `brk-` redirect URI: swapped as MSAL swaps it.
        let config = MSALPublicClientApplicationConfig(clientId: Self.hub, redirectUri: "http://localhost",
                                                       authority: try MSALAADAuthority(url: emulator.authorityURL),
                                                       nestedAuthBrokerClientId: Self.nested,
                                                       nestedAuthBrokerRedirectUri: Self.nestedRedirect)
        let app = try MSALPublicClientApplication(configuration: config, platform: MSALPlatformServices(
            httpClient: http, webAuthenticator: EmulatorAutoApproveAuthenticator(httpClient: http), cacheStorage: { storage }))
        let result = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"],
                                                                                     webviewParameters: MSALWebviewParameters()))
        #expect(!result.accessToken.isEmpty)
        let authorize = try #require(http.requests.first { $0.url.path.hasSuffix("/authorize") })
        let query = Dictionary(uniqueKeysWithValues: (URLComponents(url: authorize.url, resolvingAgainstBaseURL: false)?.queryItems ?? [])
            .map { ($0.name, $0.value ?? "") })
        #expect(query["client_id"] == Self.nested && query["redirect_uri"] == Self.nestedRedirect)
        #expect(query["brk_client_id"] == Self.hub && query["brk_redirect_uri"] == "http://localhost")
        let code = try #require(http.requests.first { $0.url.path.hasSuffix("/token") })
        let codeForm = Self.form(code)
        #expect(codeForm["grant_type"] == "authorization_code" && codeForm["client_id"] == Self.nested)
        #expect(codeForm["redirect_uri"] == Self.nestedRedirect && codeForm["brk_client_id"] == Self.hub
            && codeForm["brk_redirect_uri"] == "http://localhost")
        // The refresh token is kept under the hub's client id, the access token under the nested app's.
        let document = try JSONSerialization.jsonObject(with: try #require(try storage.read()?.data)) as? [String: [String: [String: Any]]]
        #expect(document?["RefreshToken"]?.values.map { $0["client_id"] as? String } == [Self.hub])
        #expect(document?["AccessToken"]?.values.allSatisfy { $0["client_id"] as? String == Self.nested } == true)
        // A silent refresh finds the hub's refresh token and sends it with the hub's parameters.
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        silent.forceRefresh = true
        _ = try await app.acquireTokenSilent(with: silent)
        let refresh = try #require(http.requests.last { $0.url.path.hasSuffix("/token") })
        let refreshForm = Self.form(refresh)
        #expect(refreshForm["grant_type"] == "refresh_token" && refreshForm["client_id"] == Self.nested)
        #expect(refreshForm["brk_client_id"] == Self.hub && refreshForm["brk_redirect_uri"] == "http://localhost"
            && refreshForm["redirect_uri"] == Self.nestedRedirect)
        // The hub's refresh token is not redeemed without the hub.
        let tokens = try JSONSerialization.jsonObject(with: try #require(try storage.read()?.data)) as? [String: [String: [String: Any]]]
        let refreshToken = try #require(tokens?["RefreshToken"]?.values.first?["secret"] as? String)
        let endpoint = emulator.authorityURL.appendingPathComponent("oauth2/v2.0/token")
        let body = "client_id=\(Self.nested)&grant_type=refresh_token&scope=openid%20User.Read&refresh_token=\(refreshToken)"
        let refused = try await http.send(MSALHTTPRequest(method: "POST", url: endpoint,
                                                          headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                                          body: Data(body.utf8), timeout: 30))
        #expect(refused.statusCode == 400 && String(decoding: refused.body, as: UTF8.self).contains("invalid_grant"))
    }

    @Test func theEmulatorRefusesRequestsThatDoNotHoldTogether() async throws {
        let emulator = try await ProofOfPossessionTests.emulator()
        defer { Task { await emulator.stop() } }
        let http = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        func authorize(_ extra: [String: String]) async throws -> MSALHTTPResponse {
            var components = URLComponents(url: emulator.authorityURL.appendingPathComponent("oauth2/v2.0/authorize"),
                                           resolvingAgainstBaseURL: false)!
            let base = ["client_id": Self.nested, "redirect_uri": Self.nestedRedirect, "response_type": "code",
                        "scope": "openid User.Read", "code_challenge": String(repeating: "a", count: 43),
                        "code_challenge_method": "S256"]
            components.queryItems = base.merging(extra) { $1 }.map { URLQueryItem(name: $0.key, value: $0.value) }
            return try await http.send(MSALHTTPRequest(method: "GET", url: components.url!, headers: [:], timeout: 30))
        }
        for extra in [["brk_client_id": Self.hub], ["brk_redirect_uri": "http://localhost"],
                      ["brk_client_id": Self.hub, "brk_redirect_uri": "https://elsewhere.example/cb"],
                      ["brk_client_id": "00000000-0000-0000-0000-0000000000ff", "brk_redirect_uri": "http://localhost"]] {
            let answer = try await authorize(extra)
            #expect(answer.statusCode == 400 && String(decoding: answer.body, as: UTF8.self).contains("AADSTS"), "\(extra)")
            #expect(!(answer.header("Location") ?? "").contains("code="), "\(extra)")
        }
        // The nested app's redirect URI names another hub: refused.
        let other = try await authorize(["brk_client_id": "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9", "brk_redirect_uri": "http://localhost"])
        #expect(other.statusCode == 400 && !(other.header("Location") ?? "").contains("code="))
    }
}
