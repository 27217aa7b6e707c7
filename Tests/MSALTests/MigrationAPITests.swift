import Foundation
import Testing
import MSAL
import MSALTesting
@testable import MSALCore

/// The rest of MSAL for iOS/macOS's configuration API: slice configuration (added to the extra query parameters as
/// MSAL adds it), the redirect URI type, the AD FS authority (refused, as MSAL refuses it), the JSON protocols, and
/// the partner cache locations.
@Suite("Slice, redirect URI, AD FS, JSON protocols and wipe configuration")
struct MigrationAPITests {
    @Test func aSliceConfigAddsSliceAndDataCenterToTheQuery() throws {
        let config = MSALPublicClientApplicationConfig(clientId: "00000000-0000-0000-0000-000000000001")
        config.extraQueryParameters = ["x": "1"]
        let slice = try #require(MSALSliceConfig(slice: "testslice", dc: "ESTS-PUB-WUS2-AZ1-FD000-TEST1"))
        #expect(slice.sliceDictionary == ["slice": "testslice", "dc": "ESTS-PUB-WUS2-AZ1-FD000-TEST1"])
        config.sliceConfig = slice
        #expect(config.extraQueryParameters == ["x": "1", "slice": "testslice", "dc": "ESTS-PUB-WUS2-AZ1-FD000-TEST1"])
        // The configuration keeps a copy; the copy travels with the configuration.
        slice.slice = "changed"
        #expect(config.sliceConfig?.slice == "testslice")
        #expect(MSALSliceConfig.config(slice: nil, dc: "dc1")?.sliceDictionary == ["dc": "dc1"])
        #expect((slice.copy() as? MSALSliceConfig)?.slice == "changed")
    }

    @Test func aSliceIsSentWithTheRequests() async throws {
        let provider = MSALScriptedIdentityProvider()
        let config = MSALPublicClientApplicationConfig(clientId: "00000000-0000-0000-0000-000000000001")
        config.sliceConfig = MSALSliceConfig(slice: "testslice", dc: "dc1")
        config.httpClient = provider
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let app = try MSALPublicClientApplication(configuration: config)
        _ = try await app.startDeviceCodeFlow(with: MSALDeviceCodeParameters(scopes: ["User.Read"]))
        let sent = provider.requests.filter { $0.url.path.hasSuffix("/devicecode") }
            .map { $0.url.absoluteString + " " + String(decoding: $0.body ?? Data(), as: UTF8.self) }
        #expect(sent.contains { $0.contains("slice=testslice") && $0.contains("dc=dc1") }, "\(sent)")
    }

    @Test func redirectURIsAndADFSAuthorities() throws {
        let broker = MSALRedirectUri(url: URL(string: "msauth.com.example.app://auth")!, bundleId: "com.example.app")
        #expect(broker.brokerCapable && broker.url.absoluteString == "msauth.com.example.app://auth")
        #expect(!MSALRedirectUri(url: URL(string: "http://localhost")!, bundleId: "com.example.app").brokerCapable)
        #expect((broker.copy() as? MSALRedirectUri)?.brokerCapable == true)
        #expect(throws: MSALErrorInfo.self) { try MSALADFSAuthority(url: URL(string: "https://adfs.contoso.com/adfs")!) }
    }

    @Test func claimsRequestsAreJSONSerializableAndDeserializable() throws {
        func roundTrip<T: MSALJsonSerializable & MSALJsonDeserializable>(_ value: T) throws -> T {
            try T(jsonString: try #require(value.jsonString()))
        }
        let claims = try MSALClaimsRequest(jsonString: #"{"access_token":{"xms_cc":{"values":["cp1"]}}}"#)
        #expect(try roundTrip(claims).jsonString() == claims.jsonString())
    }

    @Test func partnerLocationsAreMSALsOnMacOSAndNoneElsewhere() {
        let locations = MSALWipeCacheForAllAccountsConfig.partnerLocations
        #expect(locations.count == 6)
        #expect(locations["Visual Studio Code"] == ["acct": "microsoft.login", "labl": "vscodevscode.microsoft-authentication",
                                                    "svce": "vscodevscode.microsoft-authentication"])
        #if !os(macOS)
        #expect(MSALWipeCacheForAllAccountsConfig.additionalPartnerLocations().isEmpty)
        #endif
    }
}
