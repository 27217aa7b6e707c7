import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// Silent parameters remember the cache hit that last answered them. These check that a remembered hit is never
/// returned when it no longer answers the request: the parameters changed, another application is asked, the cache
/// changed, or the token aged.
@Suite("Remembered silent hits")
struct RememberedHitTests {
    let provider = MSALScriptedIdentityProvider(host: "login-\(UUID().uuidString.prefix(8).lowercased()).example.com")

    private func signIn(_ app: MSALPublicClientApplication, scopes: [String]) async throws -> MSALResult {
        try await app.acquireToken(with: interactiveParameters(provider, scopes: scopes))
    }

    @Test func changingTheParametersForgetsTheHit() async throws {
        let app = try makeFakeApp(provider)
        let read = try await signIn(app, scopes: ["User.Read"])
        let write = try await signIn(app, scopes: ["Mail.Send"])
        #expect(read.accessToken != write.accessToken)
        provider.resetLog()
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: read.account)
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken == read.accessToken)
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken == read.accessToken)
        parameters.scopes = ["Mail.Send"]
        let changed = try await app.acquireTokenSilent(with: parameters)
        #expect(changed.accessToken == write.accessToken)
        #expect(changed.scopes.contains { $0.caseInsensitiveCompare("Mail.Send") == .orderedSame })
        #expect(provider.tokenRequests.isEmpty)
        parameters.forceRefresh = true
        let forced = try await app.acquireTokenSilent(with: parameters)
        #expect(forced.accessToken != write.accessToken)
        #expect(provider.tokenRequests.count == 1)
    }

    @Test func theSameParametersAskedOfAnotherApplicationGetThatApplicationsToken() async throws {
        let first = try makeFakeApp(provider)
        let second = try makeFakeApp(provider)  // its own cache
        let firstResult = try await signIn(first, scopes: ["User.Read"])
        let secondResult = try await signIn(second, scopes: ["User.Read"])
        #expect(firstResult.accessToken != secondResult.accessToken)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: firstResult.account)
        for _ in 0..<3 {
            #expect(try await first.acquireTokenSilent(with: parameters).accessToken == firstResult.accessToken)
            #expect(try await second.acquireTokenSilent(with: parameters).accessToken == secondResult.accessToken)
        }
    }

    @Test func aRemovedAccountIsNotAnsweredFromTheRememberedHit() async throws {
        let app = try makeFakeApp(provider)
        let result = try await signIn(app, scopes: ["User.Read"])
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken == result.accessToken)
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken == result.accessToken)
        try app.remove(result.account)
        provider.resetLog()
        await #expect(throws: MSALErrorInfo.self) { try await app.acquireTokenSilent(with: parameters) }
    }

    @Test func anAgedTokenIsRefreshedThoughItWasRemembered() async throws {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock)
        let result = try await signIn(app, scopes: ["User.Read"])
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken == result.accessToken)
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken == result.accessToken)
        provider.resetLog()
        clock.advance(3600)
        let refreshed = try await app.acquireTokenSilent(with: parameters)
        #expect(refreshed.accessToken != result.accessToken)
        #expect(provider.tokenRequests.count == 1)
        // The refreshed token is remembered in turn.
        #expect(try await app.acquireTokenSilent(with: parameters).accessToken == refreshed.accessToken)
        #expect(provider.tokenRequests.count == 1)
    }

    @Test func eachCallGetsItsOwnCorrelationIdUnlessOneIsSet() async throws {
        let app = try makeFakeApp(provider)
        let result = try await signIn(app, scopes: ["User.Read"])
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        let first = try await app.acquireTokenSilent(with: parameters)
        let second = try await app.acquireTokenSilent(with: parameters)
        #expect(first.correlationId != second.correlationId)
        let chosen = UUID()
        parameters.correlationId = chosen
        #expect(try await app.acquireTokenSilent(with: parameters).correlationId == chosen)
        #expect(try await app.acquireTokenSilent(with: parameters).correlationId == chosen)
    }
}
