#if os(Linux)
import Foundation
import MSALSupport
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALDBus
import MSALEmulator
import MSALEmulatorCore

/// The library's broker port end to end: an application with the broker on, the D-Bus transport, a private bus,
/// and the emulator's broker answering from its directory and token issuer.
@Suite("Brokered sign-in on Linux (emulated broker, private bus)", .serialized,
       .enabled(if: PrivateBus.available || PrivateBus.required))
struct BrokeredSignInTests {
    /// An emulator (auto-approve user; contoso under `policy`), a private bus and the emulated broker on it.
    final class Fixture: @unchecked Sendable {
        let emulator: IdentityEmulator
        let bus: PrivateBus
        var broker: EmulatedIdentityBroker?

        init(policy: EmulatedConditionalAccess? = nil, withBroker: Bool = true,
             approve: EmulatedBrokerApprover? = nil) async throws {
            emulator = try await BrokerEmulatorFixture.start(policy: policy)
            bus = try await PrivateBus()
            if withBroker { broker = try EmulatedIdentityBroker.start(for: emulator, busAddress: bus.address, approve: approve) }
        }

        func app(broker: Bool = true, transport: (any MSALBrokerTransport)? = nil) throws -> MSALPublicClientApplication {
            let config = MSALPublicClientApplicationConfig(
                clientId: emulator.clientId, redirectUri: "http://localhost",
                authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
            config.httpClient = MSALDefaultHTTPClient.shared
            config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
            if broker { config.brokerOptions = MSALBrokerOptions(transport: transport ?? MSALDBusBrokerTransport(address: bus.address)) }
            return try MSALPublicClientApplication(configuration: config)
        }

        func stop() async {
            broker?.stop()
            bus.stop()
            await emulator.stop()
        }
    }

    static func interactive(_ scopes: [String] = ["User.Read"]) -> MSALInteractiveTokenParameters {
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        return MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview)
    }

    static func claims(_ jwt: String) -> [String: Any] {
        let part: String = jwt.split(separator: ".").dropFirst().first.map(String.init) ?? ""
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = Data(base64Encoded: base64) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    @Test func aSignInThroughTheBrokerIsDeviceBoundAndLaterTokensComeSilently() async throws {
        let fixture = try await Fixture()
        let app = try fixture.app()

        let signedIn = try await app.acquireToken(with: Self.interactive())
        #expect(signedIn.metadata.tokenSource == .broker)
        #expect(Self.claims(signedIn.accessToken)["deviceid"] as? String != nil)
        #expect(signedIn.account.username == fixture.emulator.username)
        // The broker keeps the session: no refresh token in the application's cache.
        let storage = try #require(app.configuration.cacheConfig.storage as? MSALInMemoryTokenCacheStorage)
        let cached = try JSONSerialization.jsonObject(with: storage.data ?? Data()) as? [String: Any] ?? [:]
        let refreshTokens = cached["RefreshToken"] as? [String: Any] ?? [:]
        let accessTokens = cached["AccessToken"] as? [String: Any] ?? [:]
        #expect(refreshTokens.isEmpty)
        #expect(accessTokens.count == 1)

        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        let hit = try await app.acquireTokenSilent(with: parameters)
        #expect(hit.metadata.tokenSource == .cache)
        parameters.forceRefresh = true
        let renewed = try await app.acquireTokenSilent(with: parameters)
        #expect(renewed.metadata.tokenSource == .broker)
        #expect(renewed.accessToken != signedIn.accessToken)

        // A claims challenge goes to the broker too.
        let challenged = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        challenged.claimsRequest = try MSALClaimsRequest(jsonString: #"{"access_token":{"nbf":{"essential":true,"value":"1700000000"}}}"#)
        #expect(try await app.acquireTokenSilent(with: challenged).metadata.tokenSource == .broker)

        let device = try await app.accountsFromDevice(for: MSALAccountEnumerationParameters(identifier: nil))
        #expect(device.map(\.username) == [fixture.emulator.username])

        // Signing out signs the account out of the broker: a new application on the device gets nothing silently.
        _ = try await app.signout(with: signedIn.account, signoutParameters: MSALSignoutParameters())
        let other = try fixture.app()
        #expect(try await other.accountsFromDevice(for: MSALAccountEnumerationParameters(identifier: nil)).isEmpty)
        await #expect(throws: MSALErrorInfo.self) {
            try await other.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account))
        }
        await fixture.stop()
    }

    @Test func anotherApplicationOnTheDeviceSignsInSilentlyWithTheBrokersAccount() async throws {
        let fixture = try await Fixture()
        _ = try await fixture.app().acquireToken(with: Self.interactive())
        let second = try fixture.app()
        let account = try #require(try await second.accountsFromDevice(for: MSALAccountEnumerationParameters(identifier: nil)).first)
        let result = try await second.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(result.metadata.tokenSource == .broker)
        await fixture.stop()
    }

    @Test func aCompliantDeviceTenantRefusesTheBrowserWithGuidanceAndAcceptsTheBroker() async throws {
        for policy in EmulatedConditionalAccess.allCases {
            let fixture = try await Fixture(policy: policy)
            let code = policy == .compliantDevice ? "53000" : "530084"
            do {
                _ = try await fixture.app(broker: false).acquireToken(with: Self.interactive())
                Issue.record("a browser sign-in passed the \(policy) policy")
            } catch let error as MSALErrorInfo {
                #expect(error.stsErrorCodes == [code])
                #expect(error.errorDescription.contains("broker"))
            }
            let result = try await fixture.app().acquireToken(with: Self.interactive())
            #expect(result.metadata.tokenSource == .broker)
            // The device-bound session's tokens refresh silently as well.
            let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
            parameters.forceRefresh = true
            #expect(try await fixture.app().acquireTokenSilent(with: parameters).metadata.tokenSource == .broker)
            await fixture.stop()
        }
    }

    @Test func withNoBrokerOnTheBusTheLibraryUsesItsOwnFlow() async throws {
        let fixture = try await Fixture(withBroker: false)
        let app = try fixture.app()
        let result = try await app.acquireToken(with: Self.interactive())
        #expect(result.metadata.tokenSource == .identityProvider)
        await fixture.stop()
    }

    @Test func aBrokerThatNeverAnswersASilentCallIsLeftForTheRefreshToken() async throws {
        let fixture = try await Fixture(withBroker: false)
        // Signed in without the broker first: the cache holds a refresh token. Its account's source is then made
        // unknown (as an older SDK's entry), so that the silent call asks the broker, as MSAL for Python does.
        let plain = try fixture.app(broker: false)
        let signedIn = try await plain.acquireToken(with: Self.interactive())
        let written = try #require((plain.configuration.cacheConfig.storage as? MSALInMemoryTokenCacheStorage)?.data)
        var document = try #require(try JSONSerialization.jsonObject(with: written) as? [String: Any])
        var accounts = document["Account"] as? [String: [String: Any]] ?? [:]
        for key in accounts.keys { accounts[key]?["account_source"] = nil }
        document["Account"] = accounts
        let unknownSource = MSALInMemoryTokenCacheStorage(data: try JSONSerialization.data(withJSONObject: document))
        let silent = try StandInBroker(address: fixture.bus.address) { _, _ in nil }
        defer { silent.stop() }
        var transport = MSALDBusBrokerTransport(address: fixture.bus.address)
        transport.silentTimeout = 0.5
        let config = plain.configuration
        config.cacheConfig.storage = unknownSource
        config.brokerOptions = MSALBrokerOptions(transport: transport)
        let app = try MSALPublicClientApplication(configuration: config)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.forceRefresh = true
        let result = try await app.acquireTokenSilent(with: parameters)
        #expect(result.metadata.tokenSource == .identityProvider)
        #expect(silent.received.get().contains { $0.member == "acquireTokenSilently" })
        await fixture.stop()
    }

    @Test func aSpoofedBrokerAnsweringForAnotherAccountIsRefused() async throws {
        let fixture = try await Fixture()
        let signedIn = try await fixture.app().acquireToken(with: Self.interactive())
        fixture.broker?.stop()
        try await eventually(within: 10, "the broker to let go of its name") { fixture.broker?.isStopped == true }
        let spoof = try StandInBroker(address: fixture.bus.address) { member, _ in
            member == "acquireTokenSilently"
                ? #"{"brokerTokenResponse":{"account":{"homeAccountId":"evil.tenant","username":"mallory@example.com"},"accessToken":"x","idToken":"a.b.c","expiresOn":4102444800000,"accessTokenType":0,"extendedExpiresOn":4102444800000}}"#
                : nil
        }
        defer { spoof.stop() }
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.forceRefresh = true
        await #expect(throws: MSALErrorInfo.self) { try await fixture.app().acquireTokenSilent(with: parameters) }
        do {
            _ = try await fixture.app().acquireTokenSilent(with: parameters)
        } catch let error as MSALErrorInfo {
            #expect(error.internalCode == .internalErrorMismatchedUser)
        }
        await fixture.stop()
    }

    @Test func cancellingABrokeredSignInEndsItAsCanceled() async throws {
        let waiting = LockedBox(false)
        let fixture = try await Fixture(approve: { @Sendable _ in
            waiting.set(true)
            try? await Task.sleep(for: .seconds(600))
            return nil
        })
        let app = try fixture.app()
        let task = Task { try await app.acquireToken(with: Self.interactive()) }
        try await eventually(within: 10, "the broker to wait for the user") { waiting.get() }
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled sign-in returned a token")
        } catch let error as MSALErrorInfo {
            #expect(error.code == .userCanceled)
        }
        await fixture.stop()
    }
}
#endif
