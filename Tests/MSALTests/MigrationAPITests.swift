import Foundation
import Testing
import MSAL
import MSALTesting
import MSALEmulator
import MSALEmulatorCore
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

/// External account providers (MSAL for iOS/macOS's `MSALExternalAccountProviding`): told of each account a token
/// call returns and of each removal, their accounts merged into the account lookups.
@Suite("External account providers", .serialized)
struct ExternalAccountProviderTests {
    final class Recorder: MSALExternalAccountProviding, @unchecked Sendable {
        private let lock = NSLock()
        private var updatesValue: [(String?, String?)] = []
        private var removalsValue: [(String?, Bool)] = []
        var external: [any MSALAccountProtocol] = []
        var failsRemoval = false

        var updates: [(String?, String?)] { lock.withLock { updatesValue } }
        var removals: [(String?, Bool)] { lock.withLock { removalsValue } }

        func update(_ account: any MSALAccountProtocol, idTokenClaims: [AnyHashable: Any]) throws {
            lock.withLock { updatesValue.append((account.identifier, idTokenClaims["preferred_username"] as? String)) }
        }
        func remove(_ account: any MSALAccountProtocol, wipeAccount: Bool, tenantProfiles: [MSALTenantProfile]?) throws {
            if failsRemoval { throw MSALErrorInfo.invalidParameter("the storage is read-only") }
            lock.withLock { removalsValue.append((account.identifier, wipeAccount)) }
        }
        func accounts(with parameters: MSALAccountEnumerationParameters) throws -> [any MSALAccountProtocol] { external }
    }

    struct StoredAccount: MSALAccountProtocol {
        var username: String?
        var identifier: String?
        var environment: String
        var accountClaims: [String: Any]? { nil }
    }

    @Test func providersAreToldOfAccountsAndTheirAccountsAreMerged() async throws {
        let emulator = try await ProofOfPossessionTests.emulator()
        defer { Task { await emulator.stop() } }
        let recorder = Recorder()
        recorder.external = [StoredAccount(username: "kept@fabrikam.example", identifier: "oid-ext.tid-ext",
                                           environment: "login.microsoftonline.com")]
        let http = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAADAuthority(url: emulator.authorityURL))
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        config.cacheConfig.addExternalAccountProvider(recorder)
        #expect(config.cacheConfig.externalAccountProviders.count == 1)
        let app = try MSALPublicClientApplication(configuration: config, platform: MSALPlatformServices(
            httpClient: http, webAuthenticator: EmulatorAutoApproveAuthenticator(httpClient: http)))

        let webview = MSALWebviewParameters()
        let signedIn = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        #expect(recorder.updates.map(\.0) == [signedIn.account.identifier])
        #expect(recorder.updates.first?.1 == emulator.username)
        _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
        #expect(recorder.updates.count == 2)

        // The lookups merge the provider's account, never twice.
        let all = try app.allAccounts()
        #expect(Set(all.compactMap(\.identifier)) == [signedIn.account.identifier, "oid-ext.tid-ext"])
        #expect(try app.account(forIdentifier: "oid-ext.tid-ext").username == "kept@fabrikam.example")
        recorder.external.append(StoredAccount(username: emulator.username, identifier: signedIn.account.identifier,
                                               environment: signedIn.account.environment))
        #expect(try app.allAccounts().count == 2)

        // Removal and sign-out reach the provider; a provider that fails fails the call.
        try app.remove(signedIn.account)
        #expect(recorder.removals.map(\.0) == [signedIn.account.identifier])
        recorder.failsRemoval = true
        #expect(throws: MSALErrorInfo.self) { try app.remove(signedIn.account) }
        recorder.failsRemoval = false
        let parameters = MSALSignoutParameters()
        parameters.wipeAccount = true
        _ = try await app.signout(with: signedIn.account, signoutParameters: parameters)
        #expect(recorder.removals.last?.1 == true)
    }
}
