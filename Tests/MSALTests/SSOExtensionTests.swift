import Foundation
import MSALSupport
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALEmulator
import MSALEmulatorCore

/// Microsoft's Enterprise SSO extension on the broker port: each operation's request and answer in MSAL for
/// iOS/macOS's formats (message protocol 4, flat string fields), against the emulator playing the extension.
@Suite("The Enterprise SSO extension against the emulator", .serialized)
struct SSOExtensionTests {
    /// The device's extension: configured or not, answering from the emulator, the operations it saw.
    struct Extension: MSALSSOExtensionPerformer {
        let emulator: IdentityEmulator
        var configured = true
        var approve: EmulatedBrokerApprover? = nil
        var tamper: @Sendable ([String: String]) -> [String: String] = { $0 }
        let operations = LockedBox<[(String, [String: String])]>([])

        func canPerform() async -> Bool { configured }

        func perform(operation: String, items: [String: String], userInterface: Bool) async throws -> [String: String] {
            operations.withLock { $0.append((operation, items)) }
            do {
                return tamper(try await emulator.ssoExtensionAnswer(operation, items: items, approve: approve))
            } catch let error as EmulatedSSOExtensionError {
                // As AuthenticationServices delivers it: the extension's own error under -6000, the framework's as is.
                throw error.isUnderlying
                    ? BrokerErrorMapping.ssoExtension(
                        domain: EmulatedSSOExtensionError.authorizationErrorDomain, code: -6000,
                        underlying: (error.domain, error.code, error.userInfo), interactive: operation == "login",
                        correlationId: nil)
                    : BrokerErrorMapping.ssoExtension(domain: error.domain, code: error.code, underlying: nil,
                                                      interactive: operation == "login", correlationId: nil)
            }
        }
    }

    static func emulator(policy: EmulatedConditionalAccess? = nil) async throws -> IdentityEmulator {
        try await BrokerEmulatorFixture.start(policy: policy)
    }

    static func app(_ emulator: IdentityEmulator, _ ssoExtension: Extension?) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: emulator.clientId, redirectUri: "msauth.com.example.msaldemo://auth",
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
        config.httpClient = MSALDefaultHTTPClient.shared
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        if let ssoExtension { config.brokerOptions = MSALBrokerOptions(ssoExtension: ssoExtension, bundleIdentifier: "com.example.msaldemo") }
        return try MSALPublicClientApplication(configuration: config)
    }

    static func interactive() -> MSALInteractiveTokenParameters {
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        return MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
    }

    @Test func loginRefreshAccountsDeviceInformationAndSignOutRoundTrip() async throws {
        let emulator = try await Self.emulator(policy: .compliantDevice)
        let ssoExtension = Extension(emulator: emulator)
        let app = try Self.app(emulator, ssoExtension)

        let signedIn = try await app.acquireToken(with: Self.interactive())
        #expect(signedIn.metadata.tokenSource == .broker)
        let login = try #require(ssoExtension.operations.get().first)
        #expect(login.0 == "login" && login.1["msg_protocol_ver"] == "4" && login.1["client_id"] == emulator.clientId)
        #expect(login.1["scope"] == "User.Read" && login.1["broker_key"] != nil && login.1["provider_type"] == "provider_aad_v2")

        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        #expect(try await app.acquireTokenSilent(with: parameters).metadata.tokenSource == .cache)
        parameters.forceRefresh = true
        let refreshed = try await app.acquireTokenSilent(with: parameters)
        #expect(refreshed.metadata.tokenSource == .broker)
        let refresh = try #require(ssoExtension.operations.get().last)
        #expect(refresh.0 == "refresh" && refresh.1["home_account_id"] == signedIn.account.identifier && refresh.1["force_refresh"] == "1")

        // Another app of the device finds the account and gets tokens without a sign-in of its own.
        let other = try Self.app(emulator, ssoExtension)
        let device = try await other.accountsFromDevice(for: MSALAccountEnumerationParameters(identifier: nil))
        #expect(device.map(\.username) == [emulator.username])
        // `is_sso_account` of the extension's account (MSIDAccount.m's JSON form).
        #expect(device.map(\.isSSOAccount) == [true])
        #expect(try await other.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: device[0])).metadata.tokenSource == .broker)

        let information = try await app.deviceInformation(with: nil)
        #expect(information.hasAADSSOExtension && information.deviceMode == .default)
        #expect(information.extraDeviceInformationValues["primary_registration_metadata_device_id"] != nil)
        #expect(information.extraDeviceInformationValues["isSSOExtensionInFullMode"] == "Yes")

        let signedOut = try await app.signout(with: signedIn.account, signoutParameters: MSALSignoutParameters())
        #expect(signedOut)
        #expect(ssoExtension.operations.get().last?.0 == "signout_account_operation")
        // The device no longer holds it (an app that never signed in finds no account).
        let third = try Self.app(emulator, ssoExtension)
        #expect(try await third.accountsFromDevice(for: MSALAccountEnumerationParameters(identifier: nil)).isEmpty)
        await emulator.stop()
    }

    @Test func sharedDeviceModeReportsTheDevicesCurrentAccount() async throws {
        let emulator = try await Self.emulator()
        await emulator.setSharedDeviceMode(true)
        let ssoExtension = Extension(emulator: emulator)
        let app = try Self.app(emulator, ssoExtension)
        #expect(try await app.deviceInformation(with: nil).deviceMode == .shared)
        _ = try await Self.app(emulator, ssoExtension).acquireToken(with: Self.interactive())
        let (current, _) = try await app.currentAccount(with: nil)
        #expect(current?.username == emulator.username)
        // Signing out with wipeCacheForAllAccounts wipes the device's accounts in the extension too.
        let parameters = MSALSignoutParameters()
        parameters.wipeCacheForAllAccounts = true
        #expect(try await app.signout(with: try #require(current), signoutParameters: parameters))
        #expect(ssoExtension.operations.get().last?.1["wipe_cache_all_accounts"] == "1")
        #expect(try await Self.app(emulator, ssoExtension).accountsFromDevice(for: MSALAccountEnumerationParameters(identifier: nil)).isEmpty)
        await emulator.stop()
    }

    /// The device's policies as the extension reports them, the QR code + PIN sign-in (`pc=18`) asked for in the
    /// extension's request, and `MSALXpcMode.primary`, which a release build of MSAL for iOS/macOS treats as `.disabled`
    /// (`MSALPublicClientApplication.m:735-738`): the extension still answers.
    @Test func devicePoliciesPreferredAuthMethodAndXpcMode() async throws {
        let emulator = try await Self.emulator()
        await emulator.setDevicePolicies(preferredAuthQRPIN: true, platformSSOStatus: "platformSSOEnabledAndRegistered")
        let ssoExtension = Extension(emulator: emulator)
        let app = try Self.app(emulator, ssoExtension)
        let information = try await app.deviceInformation(with: nil)
        #expect(information.configuredPreferredAuthMethod == .QRPIN)
        #expect(information.platformSSOStatus == .enabledAndRegistered)
        await emulator.setDevicePolicies(preferredAuthQRPIN: false, platformSSOStatus: "somethingElse")
        let plain = try await app.deviceInformation(with: nil)
        #expect(plain.configuredPreferredAuthMethod == .none && plain.platformSSOStatus == .notEnabled)

        let parameters = Self.interactive()
        parameters.preferredAuthMethod = .QRPIN
        parameters.extraQueryParameters = ["dc": "ESTS-PUB-WUS2-AZ1-FD000-TEST1"]
        #expect(try await app.acquireToken(with: parameters).metadata.tokenSource == .broker)
        let login = try #require(ssoExtension.operations.get().last)
        let extra = (FormCoding.decode(login.1["extra_query_param"] ?? "", duplicates: .lastWins, malformed: .keepAsSent) ?? [:])
        #expect(extra["pc"] == "18" && extra["dc"] == "ESTS-PUB-WUS2-AZ1-FD000-TEST1")

        let count = ssoExtension.operations.get().count
        let direct = Self.interactive()
        direct.msalXpcMode = .primary
        let result = try await app.acquireToken(with: direct)
        #expect(result.metadata.tokenSource == .broker)
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        silent.forceRefresh = true
        silent.msalXpcMode = .primary
        #expect(try await app.acquireTokenSilent(with: silent).metadata.tokenSource == .broker)
        #expect(ssoExtension.operations.get().count == count + 2)
        await emulator.stop()
    }

    /// `allowUsingLocalCachedRtWhenSsoExtFailed`: when the extension fails a silent request, the account's own refresh
    /// token is used if allowed; otherwise (or when that fails too) the extension's error is returned.
    @Test func aFailedExtensionFallsBackToTheCachedRefreshTokenWhenAllowed() async throws {
        let emulator = try await Self.emulator()
        let plain = try Self.app(emulator, nil)
        let signedIn = try await plain.acquireToken(with: Self.interactive())
        // The extension does not hold the account (it signed in in the web view): it fails the silent request.
        let failing = Extension(emulator: emulator)
        let config = plain.configuration
        config.brokerOptions = MSALBrokerOptions(ssoExtension: failing, bundleIdentifier: "com.example.msaldemo")
        let app = try MSALPublicClientApplication(configuration: config)
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        parameters.forceRefresh = true
        #expect(try await app.acquireTokenSilent(with: parameters).metadata.tokenSource == .identityProvider)
        parameters.allowUsingLocalCachedRtWhenSsoExtFailed = false
        await #expect { try await app.acquireTokenSilent(with: parameters) } throws: {
            ($0 as? MSALErrorInfo)?.code == .interactionRequired
        }
        #expect(failing.operations.get().map(\.0) == ["refresh", "refresh"])
        await emulator.stop()
    }

    /// A hostile answer's lifetimes (`1e19` seconds, an `expires_on` near `Double`'s limit) are stored bounded by the one accept step (at most ten years), with no trap, and the cache reads back.
    @Test func anOutOfRangeLifetimeIsStoredBounded() async throws {
        let emulator = try await Self.emulator()
        var hostile = Extension(emulator: emulator)
        hostile.tamper = { fields in
            fields.merging(["expires_in": "1e19", "ext_expires_in": "1e19", "refresh_in": "1e19",
                            "ext_expires_on": "1e300", "expires_on": "9.9e307"]) { $1 }
        }
        let app = try Self.app(emulator, hostile)
        let result = try await app.acquireToken(with: Self.interactive())
        #expect(result.metadata.tokenSource == .broker)
        let expiresOn = try #require(result.expiresOn)
        #expect(expiresOn.timeIntervalSinceNow <= ExternalNumber.maximumLifetime + 60 && expiresOn.timeIntervalSinceNow > 0)
        let hit = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        #expect(hit.metadata.tokenSource == .cache && hit.accessToken == result.accessToken)
        await emulator.stop()
    }

    /// An app whose redirect URI is not broker-capable never asks the extension (MSAL for iOS/macOS's `requestType`,
    /// `MSALPublicClientApplication.m:1782-1796`), and the emulated extension refuses such a request as the real one.
    @Test func aNonBrokerRedirectURILeavesTheExtensionOut() async throws {
        let emulator = try await Self.emulator()
        let ssoExtension = Extension(emulator: emulator)
        let config = try Self.app(emulator, ssoExtension).configuration
        config.brokerOptions = MSALBrokerOptions(ssoExtension: ssoExtension, bundleIdentifier: "com.example.another")
        let app = try MSALPublicClientApplication(configuration: config)
        #expect(try await app.acquireToken(with: Self.interactive()).metadata.tokenSource == .identityProvider)
        #expect(!(try await app.deviceInformation(with: nil).hasAADSSOExtension))
        #expect(ssoExtension.operations.get().isEmpty)
        await #expect { try await emulator.ssoExtensionAnswer("login", items: ["msg_protocol_ver": "4",
            "broker_key": MSALSupport.Base64URL.encode(Data(count: 32)), "redirect_uri": "https://app.example/auth"]) } throws: {
            ($0 as? EmulatedSSOExtensionError).map { $0.domain == "MSIDErrorDomain" && $0.code == -51119 } ?? false
        }
        await emulator.stop()
    }

    @Test func withoutTheExtensionTheLibrarysOwnFlowsRun() async throws {
        let emulator = try await Self.emulator()
        var ssoExtension = Extension(emulator: emulator)
        ssoExtension.configured = false
        let app = try Self.app(emulator, ssoExtension)
        #expect(try await app.acquireToken(with: Self.interactive()).metadata.tokenSource == .identityProvider)
        #expect(!(try await app.deviceInformation(with: nil).hasAADSSOExtension))
        #expect(ssoExtension.operations.get().isEmpty)
        await emulator.stop()
    }

    @Test func aCanceledSignInAndHostileAnswersAreTypedErrors() async throws {
        let emulator = try await Self.emulator()
        var canceling = Extension(emulator: emulator)
        canceling.approve = { _ in nil }
        await #expect { try await Self.app(emulator, canceling).acquireToken(with: Self.interactive()) } throws: {
            ($0 as? MSALErrorInfo)?.code == .userCanceled
        }
        var other = Extension(emulator: emulator)
        other.tamper = { fields in fields.merging(["operation": "get_device_info"]) { $1 } }
        await #expect { try await Self.app(emulator, other).acquireToken(with: Self.interactive()) } throws: {
            ($0 as? MSALErrorInfo)?.internalCode == .internalErrorBrokerCorruptedResponse
        }
        // Header field names are case-insensitive: an answer whose names changed case is read the same.
        var recased = Extension(emulator: emulator)
        recased.tamper = { fields in Dictionary(uniqueKeysWithValues: fields.map { ($0.key.capitalized, $0.value) }) }
        #expect(try await Self.app(emulator, recased).acquireToken(with: Self.interactive()).metadata.tokenSource == .broker)
        var huge = Extension(emulator: emulator)
        huge.tamper = { fields in fields.merging(["access_token": String(repeating: "x", count: 1 << 17)]) { $1 } }
        await #expect(throws: MSALErrorInfo.self) { try await Self.app(emulator, huge).acquireToken(with: Self.interactive()) }
        await emulator.stop()
    }

    /// The extension's own errors in `MSALErrorDomain` keep MSAL's codes, the broker family's just-in-time and Platform
    /// SSO codes included; an unknown code is an unknown broker error.
    @Test(arguments: [(-42719, MSALInternalError.internalErrorJITComplianceCheckResultNotCompliant),
                      (-42729, .errorJITRetryRequired), (-42736, .errorDeviceNotPSSORegistered),
                      (-42744, .errorPSSOBiometricsNotEnrolled), (-42714, .internalBrokerNotAvailable),
                      (-42799, .internalErrorBrokerUnknown)])
    func theExtensionsErrorCodesAreMSALs(code: Int, expected: MSALInternalError) {
        let error = BrokerErrorMapping.apple(domain: "MSALErrorDomain", code: code, correlationId: nil)
        #expect(error.code == .internal && error.internalCode == expected)
    }
}
