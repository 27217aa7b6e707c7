import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// Why a cached token was not returned, for every decision of the silent policy, and the metadata's figures.
@Suite("Result metadata")
struct ResultMetadataTests {
    let policy = CachedTokenPolicy(expirationBuffer: 300, extendedLifetimeEnabled: false)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func reason(expiresIn: TimeInterval?, refreshIn: TimeInterval? = nil, force: Bool = false,
                claims: Bool = false) -> MSALCacheRefreshReason {
        let times = expiresIn.map {
            CachedTokenTimes(expiresOn: now.addingTimeInterval($0), refreshOn: refreshIn.map(now.addingTimeInterval))
        }
        return policy.refreshReason(times, now: now, forceRefresh: force, hasClaims: claims)
    }

    @Test func everyDecisionHasItsReason() {
        #expect(reason(expiresIn: 3600) == .notApplicable)
        #expect(reason(expiresIn: nil) == .noCachedAccessToken)
        #expect(reason(expiresIn: nil, force: true) == .noCachedAccessToken)
        #expect(reason(expiresIn: -10) == .expired)
        #expect(reason(expiresIn: 200) == .expired, "within the expiration buffer")
        #expect(reason(expiresIn: 3600, refreshIn: -1) == .proactivelyRefreshed)
        #expect(reason(expiresIn: 3600, force: true) == .forceRefresh)
        #expect(reason(expiresIn: 3600, claims: true) == .claims)
    }

    @Test func theCacheDecisionLineHoldsTimesOnly() {
        let hit = CacheDecisionNote.describe(.notApplicable, times: CachedTokenTimes(expiresOn: now.addingTimeInterval(60)),
                                             now: now, what: "access token")
        #expect(hit == "Cache: hit, access token expires in 60 s; returned without a request.")
        let expired = CacheDecisionNote.describe(.expired, times: CachedTokenTimes(expiresOn: now.addingTimeInterval(-5)),
                                                 now: now, what: "app token")
        #expect(expired == "Cache: app token expired 5 s ago; refreshing (expired).")
        #expect(CacheDecisionNote.describe(.noCachedAccessToken, times: nil, now: now, what: "access token")
            == "Cache: no access token cached; requesting one (no_cached_access_token).")
    }

    @Test func durationsAreCollectedPerCall() async throws {
        let (value, diagnostics) = await RequestDiagnostics.measure { () async -> Int in
            RequestDiagnostics.current?.addHTTP(.milliseconds(120))
            RequestDiagnostics.current?.addHTTP(.milliseconds(30))
            RequestDiagnostics.current?.addCache(.milliseconds(2))
            RequestDiagnostics.current?.noteRefreshReason(.expired)
            return 7
        }
        #expect(value == 7)
        #expect(RequestDiagnostics.current == nil, "the collector belongs to its call only")
        let metadata = diagnostics.metadata(defaultSource: .identityProvider)
        #expect(metadata.tokenSource == .identityProvider)
        #expect(metadata.cacheRefreshReason == .expired)
        #expect(abs(metadata.durationInHTTP - 0.15) < 1e-9)
        #expect(abs(metadata.durationInCache - 0.002) < 1e-9)
        #expect(MSALResultMetadata.milliseconds(metadata.durationInHTTP) == 150)
        #expect(MSALResultMetadata.milliseconds(.nan) == 0 && MSALResultMetadata.milliseconds(.infinity) == 0)
    }
}
