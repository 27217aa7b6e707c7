import Foundation
import MSAL
import MSALTesting
import Testing
@testable import MSALCore
import MSALTestSupport

/// Client credentials against the scripted provider: the wire format, the app-token cache (per tenant, no request
/// on a hit, shared concurrent requests) and the typed errors.
@Suite("Client credentials")
struct ClientCredentialsTests {
    let provider = MSALScriptedIdentityProvider(host: "login-\(UUID().uuidString.prefix(8).lowercased()).example.com")
    static let graph = ["https://graph.microsoft.com/.default"]
    static let tenantA = "11111111-1111-4111-8111-111111111111"
    static let tenantB = "22222222-2222-4222-8222-222222222222"

    func authority(_ tenant: String) throws -> MSALAuthority {
        try MSALAADAuthority(url: URL(string: "https://\(provider.host)/\(tenant)")!)
    }

    func makeApp(_ credential: MSALClientCredential = .secret("s3cret-value"), tenant: String = tenantA,
                 clock: MSALTestClock = MSALTestClock(), storage: (any MSALTokenCacheStorage)? = nil) throws
        -> MSALConfidentialClientApplication {
        let config = MSALConfidentialClientApplicationConfig(clientId: provider.clientId, clientCredential: credential,
                                                             authority: try authority(tenant))
        config.httpClient = provider
        config.clock = clock
        config.cacheConfig.storage = storage ?? MSALInMemoryTokenCacheStorage()
        return try MSALConfidentialClientApplication(configuration: config)
    }

    @Test func theGrantIsSentOnceAndThenServedFromTheCache() async throws {
        provider.clientSecret = "s3cret-value"
        let app = try makeApp()
        let first = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        #expect(first.tokenSource == .identityProvider)
        #expect(first.tenantId == Self.tenantA)
        #expect(first.authorizationHeader == "Bearer \(first.accessToken)")
        let bodies = provider.tokenRequestBodies()
        #expect(bodies.count == 1)
        #expect(bodies.first?["grant_type"] == "client_credentials")
        #expect(bodies.first?["client_secret"] == "s3cret-value")
        #expect(bodies.first?["scope"] == Self.graph[0])
        #expect(bodies.first?["client_info"] == nil)
        provider.resetLog()
        let second = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        #expect(second.tokenSource == .cache)
        #expect(second.accessToken == first.accessToken)
        #expect(provider.requests.isEmpty)
        #expect(!"\(second)".contains(second.accessToken))
    }

    @Test func eachTenantHasItsOwnToken() async throws {
        let app = try makeApp()
        let a = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        let parameters = MSALClientCredentialParameters(scopes: Self.graph)
        parameters.authority = try authority(Self.tenantB)
        let b = try await app.acquireTokenForClient(with: parameters)
        #expect(a.accessToken != b.accessToken)
        #expect(b.tenantId == Self.tenantB)
        provider.resetLog()
        #expect(try await app.acquireTokenForClient(with: parameters).accessToken == b.accessToken)
        #expect(try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)).accessToken
            == a.accessToken)
        #expect(provider.requests.isEmpty)
    }

    @Test func concurrentRequestsForOneTokenSendOneRequest() async throws {
        provider.tokenDelay = 0.3
        let app = try makeApp()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)).accessToken }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(provider.tokenRequests.count == 1)
    }

    @Test func anExpiredTokenIsReplacedAndForceRefreshSkipsTheCache() async throws {
        let clock = MSALTestClock()
        let app = try makeApp(clock: clock)
        let first = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        clock.advance(3600 - 200)
        let second = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        #expect(second.accessToken != first.accessToken)
        #expect(second.tokenSource == .identityProvider)
        let forced = MSALClientCredentialParameters(scopes: Self.graph)
        forced.forceRefresh = true
        #expect(try await app.acquireTokenForClient(with: forced).accessToken != second.accessToken)
        #expect(provider.tokenRequests.count == 3)
    }

    @Test func removeTokensForClientEmptiesTheAppTokenCache() async throws {
        let app = try makeApp()
        _ = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        try await app.removeTokensForClient()
        provider.resetLog()
        #expect(try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)).tokenSource
            == .identityProvider)
        #expect(provider.tokenRequests.count == 1)
    }

    @Test func aWrongSecretIsInvalidClientWithoutTheSecret() async throws {
        provider.clientSecret = "the-right-one"
        let app = try makeApp(.secret("a-wrong-secret-value"))
        await #expect { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)) } throws: { error in
            guard let info = error as? MSALErrorInfo else { return false }
            return info.oauthError == "invalid_client" && info.stsErrorCodes == ["7000215"]
                && !"\(info)".contains("a-wrong-secret-value") && info.correlationId != nil
        }
    }

    @Test(arguments: ["common", "organizations", "consumers"])
    func anAuthorityWithoutATenantIsRefusedBeforeAnyRequest(tenant: String) async throws {
        let app = try makeApp(tenant: tenant)
        await #expect { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidParameter
        }
        #expect(provider.requests.isEmpty)
    }

    @Test(arguments: [[String](), [""], ["openid"], ["https://graph.microsoft.com/.default", "offline_access"]])
    func scopesForUsersAreRefused(scopes: [String]) async throws {
        let app = try makeApp()
        await #expect { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: scopes)) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidParameter
        }
        #expect(provider.requests.isEmpty)
    }

    @Test func theProvidersErrorForAScopeIsTyped() async throws {
        let app = try makeApp()
        await #expect { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: ["User.Read"])) } throws: { error in
            (error as? MSALErrorInfo)?.oauthError == "invalid_scope"
        }
    }

    @Test func completionBlockFormDeliversTheResult() async throws {
        let app = try makeApp()
        let token: String = try await withCheckedThrowingContinuation { continuation in
            app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)) { result, error in
                if let result { continuation.resume(returning: result.accessToken) } else { continuation.resume(throwing: error!) }
            }
        }
        #expect(!token.isEmpty)
    }

    @Test func anAssertionProviderIsAskedForEachRequestWithTheTokenEndpointAsAudience() async throws {
        let seen = LockedRequests()
        let app = try makeApp(.assertion { request in
            seen.append(request)
            return "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJ4In0.c2ln"
        })
        _ = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        let request = try #require(seen.all.first)
        #expect(request.tokenEndpoint.absoluteString == "https://\(provider.host)/\(Self.tenantA)/oauth2/v2.0/token")
        #expect(request.clientId == provider.clientId)
        #expect(request.supportsPSS)
        let body = try #require(provider.tokenRequestBodies().first)
        #expect(body["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        #expect(body["client_assertion"] == "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJ4In0.c2ln")
        #expect(body["client_secret"] == nil)
    }

    @Test(arguments: ["", "not a jwt", "a.b"])
    func anAssertionThatIsNotAJWTIsRefusedBeforeSending(assertion: String) async throws {
        let app = try makeApp(.assertion { assertion })
        await #expect { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidParameter
        }
        #expect(provider.tokenRequests.isEmpty)
    }

    @Test func aFailingAssertionProviderIsATypedError() async throws {
        struct Broken: Error {}
        let app = try makeApp(.assertion { throw Broken() })
        await #expect { try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)) } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.internalCode == .internalErrorInvalidParameter && info?.underlyingError is Broken
        }
    }

    @Test func appTokensAreStoredAsMSALForPythonKeepsThem() async throws {
        let storage = MSALInMemoryTokenCacheStorage()
        let app = try makeApp(storage: storage)
        let token = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph))
        let data = try #require(storage.data)
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let accessTokens = try #require(document["AccessToken"] as? [String: [String: Any]])
        let key = "-\(provider.host)-accesstoken-\(provider.clientId)-\(Self.tenantA)-\(Self.graph[0])".lowercased()
        let entry = try #require(accessTokens[key])
        #expect(entry["home_account_id"] is NSNull)
        #expect(entry["secret"] as? String == token.accessToken)
        #expect(entry["realm"] as? String == Self.tenantA)
        #expect(entry["target"] as? String == Self.graph[0])
        #expect(document["RefreshToken"] == nil)
        #expect(document["Account"] == nil)
        // A second application on the same storage (another process, or MSAL for Python) finds it.
        provider.resetLog()
        let other = try makeApp(storage: MSALInMemoryTokenCacheStorage(data: storage.data))
        #expect(try await other.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: Self.graph)).accessToken
            == token.accessToken)
        #expect(provider.tokenRequests.isEmpty)
    }

    @Test func credentialsNeverPrintTheirSecret() {
        let secret = MSALClientCredential.secret("hunter2-very-secret")
        #expect(!"\(secret)".contains("hunter2"))
        #expect(!String(reflecting: secret).contains("hunter2"))
    }
}

/// Collects assertion requests across tasks.
final class LockedRequests: @unchecked Sendable {
    private let lock = NSLock()
    private var requests: [MSALClientAssertionRequest] = []
    func append(_ request: MSALClientAssertionRequest) { lock.lock(); requests.append(request); lock.unlock() }
    var all: [MSALClientAssertionRequest] { lock.lock(); defer { lock.unlock() }; return requests }
}

@Suite("Granted scopes")
struct GrantedScopesTests {
    @Test func aResourceScopeGrantedUnderItsShortNameIsGranted() {
        let granted = Scopes.effectiveGranted(requested: ["https://graph.microsoft.com/User.Read", "Mail.Read"],
                                              granted: ["User.Read", "openid", "profile"])
        #expect(granted == ["User.Read", "openid", "profile", "https://graph.microsoft.com/User.Read"])
        #expect(Scopes.declined(requested: ["https://graph.microsoft.com/User.Read", "Mail.Read"], granted: granted)
            == ["Mail.Read"])
        // Another name, or no grant at all, stays declined.
        #expect(Scopes.effectiveGranted(requested: ["https://graph.microsoft.com/Mail.Send"], granted: ["User.Read"])
            == ["User.Read"])
        #expect(Scopes.effectiveGranted(requested: ["api://x/.default"], granted: [".default"]) == [".default"])
    }
}
