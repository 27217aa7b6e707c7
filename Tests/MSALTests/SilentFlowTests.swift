import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Silent acquisition")
struct SilentFlowTests {
    let provider = MSALScriptedIdentityProvider(host: "login-\(UUID().uuidString.prefix(8).lowercased()).example.com")

    private func signIn(_ app: MSALPublicClientApplication, scopes: [String] = ["User.Read"]) async throws -> MSALResult {
        try await app.acquireToken(with: interactiveParameters(provider, scopes: scopes))
    }

    @Test func cachedTokenIsReturnedWithNoNetwork() async throws {
        let app = try makeFakeApp(provider)
        let first = try await signIn(app)
        provider.resetLog()
        let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["user.read"], account: first.account))
        #expect(silent.accessToken == first.accessToken)
        #expect(provider.requests.isEmpty)
        #expect(silent.authorizationHeader == "Bearer \(first.accessToken)")
        #expect(silent.tenantProfile.tenantId == provider.tenant)
        #expect(silent.idToken != nil)
    }

    @Test func expiredTokenIsRefreshedAndRotatedTokenPersisted() async throws {
        let clock = MSALTestClock()
        let storage = MSALInMemoryTokenCacheStorage()
        let app = try makeFakeApp(provider, clock: clock, storage: storage)
        let first = try await signIn(app)
        clock.advance(3600)
        provider.resetLog()
        let refreshed = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        #expect(refreshed.accessToken != first.accessToken)
        let bodies = provider.tokenRequestBodies()
        #expect(bodies.count == 1)
        #expect(bodies.first?["grant_type"] == "refresh_token")
        #expect(bodies.first?["client_info"] == "1")
        #expect(bodies.first?["scope"]?.contains("offline_access") == true)
        // A second app on the same storage sees the rotated refresh token: its refresh succeeds.
        clock.advance(3600)
        let other = try makeFakeApp(provider, clock: clock, storage: storage)
        let again = try await other.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        #expect(again.accessToken != refreshed.accessToken)
    }

    @Test func tokenWithinExpiryBufferIsRefreshed() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let first = try await signIn(app)
        clock.advance(3600 - 299)
        provider.resetLog()
        _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        #expect(provider.tokenRequests.count == 1)
    }

    @Test func forceRefreshAndClaimsSkipTheCache() async throws {
        let app = try makeFakeApp(provider)
        let first = try await signIn(app)
        provider.resetLog()
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account)
        parameters.forceRefresh = true
        _ = try await app.acquireTokenSilent(with: parameters)
        let claims = MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account)
        claims.claimsRequest = try MSALClaimsRequest(jsonString: #"{"access_token":{"nbf":{"essential":true,"value":"1700000000"}}}"#)
        _ = try await app.acquireTokenSilent(with: claims)
        let bodies = provider.tokenRequestBodies()
        #expect(bodies.count == 2)
        #expect(bodies.last?["claims"]?.contains("nbf") == true)
    }

    @Test func proactiveRefreshFallsBackToValidToken() async throws {
        let clock = MSALTestClock()
        provider.refreshIn = 1800
        let app = try makeFakeApp(provider, clock: clock)
        let first = try await signIn(app)
        clock.advance(1801)
        provider.scripted = [MSALHTTPResponse(statusCode: 503, body: Data()), MSALHTTPResponse(statusCode: 503, body: Data())]
        let result = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        #expect(result.accessToken == first.accessToken)
    }

    @Test func invalidGrantMeansInteractionRequired() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let first = try await signIn(app)
        clock.advance(7200)
        provider.revokeAllRefreshTokens()
        await #expect {
            try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        } throws: { error in
            let ns = error as NSError
            return ns.domain == MSALErrorDomain && ns.code == MSALError.interactionRequired.rawValue
                && ns.userInfo[MSALOAuthErrorKey] as? String == "invalid_grant"
                && ns.userInfo[MSALOAuthSubErrorKey] as? String == "bad_token"
                && (ns.userInfo[MSALSTSErrorCodesKey] as? [String]) == ["700082"]
                && !(ns.localizedDescription.contains("rt-"))
        }
    }

    @Test func declinedScopesReportGrantedAndDeclined() async throws {
        provider.declinedScopes = ["Mail.Read"]
        let app = try makeFakeApp(provider)
        await #expect {
            try await signIn(app, scopes: ["User.Read", "Mail.Read"])
        } throws: { error in
            guard let info = error as? MSALErrorInfo, info.code == .serverDeclinedScopes else { return false }
            let ns = error as NSError
            return (ns.userInfo[MSALDeclinedScopesKey] as? [String]) == ["Mail.Read"]
                && (ns.userInfo[MSALGrantedScopesKey] as? [String]) == ["User.Read"]
                && ns.userInfo[MSALInvalidResultKey] is MSALResult
        }
    }

    @Test func serverErrorsAreRetriedOnceThenReportedWithTokensKept() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let first = try await signIn(app)
        clock.advance(7200)
        provider.resetLog()
        provider.scripted = Array(repeating: MSALHTTPResponse(statusCode: 500, body: Data("oops".utf8)), count: 2)
        await #expect {
            try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        } throws: { error in
            (error as? MSALErrorInfo)?.code == .serverError && (error as? MSALErrorInfo)?.httpStatusCode == 500
        }
        #expect(provider.tokenRequests.count == 2)
        // The refresh token survived: the next attempt succeeds.
        let result = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        #expect(!result.accessToken.isEmpty)
    }

    @Test func transportFailureIsRetried() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let first = try await signIn(app)
        clock.advance(7200)
        provider.failures = 1
        let result = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        #expect(!result.accessToken.isEmpty)
    }

    @Test func retryAfterIsHonoured() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let first = try await signIn(app)
        clock.advance(7200)
        provider.resetLog()
        provider.scripted = [MSALHTTPResponse(statusCode: 429, headers: ["Retry-After": "30"],
                                              body: Data(#"{"error":"temporarily_unavailable"}"#.utf8))]
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account)
        for _ in 0..<3 {
            await #expect { try await app.acquireTokenSilent(with: parameters) } throws: { error in
                (error as? MSALErrorInfo)?.code == .serverError
            }
        }
        #expect(provider.tokenRequests.count == 1)
        clock.advance(31)
        _ = try await app.acquireTokenSilent(with: parameters)
        #expect(provider.tokenRequests.count == 2)
    }

    @Test func concurrentSilentCallsShareOneRefresh() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let first = try await signIn(app)
        clock.advance(7200)
        provider.resetLog()
        provider.tokenDelay = 0.2
        let account = first.account
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account)).accessToken
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(provider.tokenRequests.count == 1)
        #expect(tokens.count == 1)
    }

    @Test func extendedLifetimeTokenDuringOutage() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock) { $0.extendedLifetimeEnabled = true }
        let first = try await signIn(app)
        clock.advance(3700)
        provider.scripted = Array(repeating: MSALHTTPResponse(statusCode: 503, body: Data()), count: 2)
        let result = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        #expect(result.extendedLifeTimeToken)
        #expect(result.accessToken == first.accessToken)
    }

    @Test func familyRefreshTokenServesAnotherClient() async throws {
        provider.familyId = "1"
        let storage = MSALInMemoryTokenCacheStorage()
        let app = try makeFakeApp(provider, storage: storage)
        let first = try await signIn(app)
        let sibling = try makeFakeApp(provider, storage: storage) { $0.clientId = "00000000-1111-2222-3333-444444444444" }
        provider.resetLog()
        let result = try await sibling.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account))
        #expect(!result.accessToken.isEmpty)
        #expect(provider.tokenRequestBodies().first?["client_id"] == "00000000-1111-2222-3333-444444444444")
    }

    @Test func repeatedHitsFollowCacheChanges() async throws {
        let storage = MSALInMemoryTokenCacheStorage()
        let app = try makeFakeApp(provider, storage: storage)
        let other = try makeFakeApp(provider, storage: storage)
        let first = try await signIn(app)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account)
        for _ in 0..<3 {
            #expect(try await app.acquireTokenSilent(with: parameters).accessToken == first.accessToken)
        }
        // Another application on the same cache refreshes: the next hit returns the new token.
        let forced = MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account)
        forced.forceRefresh = true
        let refreshed = try await other.acquireTokenSilent(with: forced)
        #expect(refreshed.accessToken != first.accessToken)
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken == refreshed.accessToken)
        // Removing the account ends the hits.
        try app.remove(first.account)
        await #expect { try await app.acquireTokenSilent(with: parameters) } throws: {
            ($0 as NSError).code == MSALError.interactionRequired.rawValue
        }
    }

    @Test func repeatedHitsStopAtExpiry() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let first = try await signIn(app)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: first.account)
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken == first.accessToken)
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken == first.accessToken)
        clock.advance(3400)
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken != first.accessToken)
    }

    @Test func badParametersAreRejected() async throws {
        let app = try makeFakeApp(provider)
        let first = try await signIn(app)
        for scopes in [[], [""], ["openid"], ["a b"]] {
            await #expect { try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: scopes, account: first.account)) }
                throws: { ($0 as? MSALErrorInfo)?.internalCode == .internalErrorInvalidParameter }
        }
    }
}
