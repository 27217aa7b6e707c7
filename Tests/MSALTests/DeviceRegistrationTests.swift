import Foundation
import MSALSupport
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALEmulator
import MSALEmulatorCore

/// The device's registration (workplace join) on the broker port: its metadata, the registration keys of
/// `getDeviceInformation`, and tokens for the device itself, signed with its key, against the emulator, which
/// registered the device and checks each request's signature, nonce and audience.
@Suite("Device registration and device tokens against the emulator", .serialized)
struct DeviceRegistrationTests {
    static func registration(_ emulated: EmulatedDeviceRegistration) throws -> MSALWorkplaceJoinRegistration {
        MSALWorkplaceJoinRegistration(
            deviceId: emulated.deviceId, tenantId: emulated.tenantId, userPrincipalName: emulated.userPrincipalName,
            cloudHost: "login.microsoftonline.com", certificate: emulated.certificate,
            key: try MSALP256DeviceRegistrationKey(rawRepresentation: emulated.privateKey))
    }

    static func app(_ emulator: IdentityEmulator, _ registrations: [MSALWorkplaceJoinRegistration],
                    ssoExtension: SSOExtensionTests.Extension? = nil) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: emulator.clientId, redirectUri: "msauth.com.example.msaldemo://auth",
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
        config.httpClient = MSALDefaultHTTPClient.shared
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        config.brokerOptions = MSALBrokerOptions(ssoExtension: ssoExtension,
                                                 workplaceJoin: MSALInMemoryWorkplaceJoinStore(registrations),
                                                 bundleIdentifier: "com.example.msaldemo")
        return try MSALPublicClientApplication(configuration: config)
    }

    /// The registered key, its signatures altered.
    struct Forged: MSALDeviceRegistrationKey {
        let key: any MSALDeviceRegistrationKey
        var algorithm: String { key.algorithm }
        func signature(for data: Data) throws -> Data {
            var signature = try key.signature(for: data)
            signature[signature.startIndex] ^= 0x01
            return signature
        }
    }

    static func claims(_ jwt: String) -> [String: Any] {
        let part = jwt.split(separator: ".").dropFirst().first.map(String.init) ?? ""
        return (try? JSONSerialization.jsonObject(with: MSALSupport.Base64URL.decode(part) ?? Data())) as? [String: Any] ?? [:]
    }

    @Test func aDeviceTokenIsSignedByTheRegisteredDeviceKey() async throws {
        let emulator = try await BrokerEmulatorFixture.start()
        let emulated = try await emulator.registerDevice()
        let app = try Self.app(emulator, [try Self.registration(emulated)])
        let parameters = try #require(MSALDeviceTokenParameters(
            resource: "https://graph.microsoft.com", scopes: ["https://graph.microsoft.com/.default"], forTenantId: emulated.tenantId))
        let result = try await app.deviceToken(with: parameters)
        let claims = Self.claims(result.accessToken)
        #expect(claims["deviceid"] as? String == emulated.deviceId && claims["idtyp"] as? String == "device")
        #expect(claims["tid"] as? String == emulated.tenantId && claims["appid"] as? String == emulator.clientId)
        #expect(result.expiresOn != nil && result.scopes == ["https://graph.microsoft.com/.default"])
        #expect(!String(describing: result).contains(result.accessToken))
        // The completion-block form gives the same.
        let viaBlock: MSALDeviceTokenResult = try await withCheckedThrowingContinuation { continuation in
            app.getDeviceToken(with: parameters) { result, error in
                if let result { continuation.resume(returning: result) } else { continuation.resume(throwing: error!) }
            }
        }
        #expect(Self.claims(viaBlock.accessToken)["deviceid"] as? String == emulated.deviceId)

        // The device registered again: the old key no longer signs for it.
        _ = try await emulator.registerDevice()
        await #expect { try await app.deviceToken(with: parameters) } throws: {
            ($0 as? MSALErrorInfo)?.oauthError == "invalid_grant"
        }
        await emulator.stop()
    }

    @Test func anUnregisteredDeviceAndBadParametersAreTypedErrors() async throws {
        let emulator = try await BrokerEmulatorFixture.start()
        let emulated = try await emulator.registerDevice()
        let app = try Self.app(emulator, [try Self.registration(emulated)])
        #expect(MSALDeviceTokenParameters(resource: " ", scopes: ["x"], forTenantId: emulated.tenantId) == nil)
        #expect(MSALDeviceTokenParameters(resource: "https://graph.microsoft.com", scopes: nil, forTenantId: "") == nil)
        let otherTenant = try #require(MSALDeviceTokenParameters(
            resource: "https://graph.microsoft.com", scopes: ["https://graph.microsoft.com/.default"], forTenantId: UUID().uuidString))
        await #expect { try await app.deviceToken(with: otherTenant) } throws: { ($0 as? MSALErrorInfo)?.code == .workplaceJoinRequired }
        for scopes in [[String](), ["aza"]] {
            let parameters = try #require(MSALDeviceTokenParameters(resource: "https://graph.microsoft.com", scopes: scopes,
                                                                    forTenantId: emulated.tenantId))
            await #expect { try await app.deviceToken(with: parameters) } throws: {
                ($0 as? MSALErrorInfo)?.internalCode == .internalErrorInvalidParameter
            }
        }
        // A signature that does not verify with the registered key is refused.
        var forged = try Self.registration(emulated)
        forged.key = Forged(key: forged.key)
        await #expect { try await Self.app(emulator, [forged]).deviceToken(with: try #require(MSALDeviceTokenParameters(
            resource: "https://graph.microsoft.com", scopes: ["https://graph.microsoft.com/.default"], forTenantId: emulated.tenantId))) }
            throws: { ($0 as? MSALErrorInfo)?.oauthError == "invalid_grant" }
        // Without a store the device is not registered anywhere.
        let bare = try Self.app(emulator, [])
        let parameters = try #require(MSALDeviceTokenParameters(
            resource: "https://graph.microsoft.com", scopes: ["https://graph.microsoft.com/.default"], forTenantId: emulated.tenantId))
        await #expect { try await bare.deviceToken(with: parameters) } throws: { ($0 as? MSALErrorInfo)?.code == .workplaceJoinRequired }
        await emulator.stop()
    }

    @Test func workplaceJoinMetadataAndDeviceInformationNameTheRegistration() async throws {
        let emulator = try await BrokerEmulatorFixture.start()
        let emulated = try await emulator.registerDevice()
        let registration = try Self.registration(emulated)
        let app = try Self.app(emulator, [registration])
        let metadata = try await app.wpjMetaDataDevice(with: nil, forTenantId: nil)
        #expect(metadata.extraDeviceInformationValues == [
            "aadDeviceIdentifier": emulated.deviceId, "aadTenantIdentifier": emulated.tenantId,
            "userPrincipalName": emulator.username,
        ])
        #expect(try await app.wpjMetaDataDevice(with: nil, forTenantId: UUID().uuidString).extraDeviceInformationValues.isEmpty)
        #expect(try await Self.app(emulator, []).wpjMetaDataDevice(with: nil, forTenantId: nil).extraDeviceInformationValues.isEmpty)

        // Without the SSO extension, the device information carries the registration under MSAL's keys.
        let information = try await app.deviceInformation(with: nil)
        #expect(!information.hasAADSSOExtension && information.deviceMode == .default)
        #expect(information.extraDeviceInformationValues[MSAL_PRIMARY_REGISTRATION_DEVICE_ID] == emulated.deviceId)
        #expect(information.extraDeviceInformationValues[MSAL_PRIMARY_REGISTRATION_TENANT_ID] == emulated.tenantId)
        #expect(information.extraDeviceInformationValues[MSAL_PRIMARY_REGISTRATION_CLOUD] == "login.microsoftonline.com")
        #expect(information.extraDeviceInformationValues[MSAL_PRIMARY_REGISTRATION_CERTIFICATE_THUMBPRINT] == registration.certificateThumbprint)
        #expect(registration.certificateThumbprint.count == 40)
        await emulator.stop()
    }

    @Test func aSharedDeviceGetsItsTokenInThePrimaryRegistrationsTenant() async throws {
        let emulator = try await BrokerEmulatorFixture.start()
        let emulated = try await emulator.registerDevice()
        let ssoExtension = SSOExtensionTests.Extension(emulator: emulator)
        let app = try Self.app(emulator, [try Self.registration(emulated)], ssoExtension: ssoExtension)
        await #expect { try await app.deviceTokenForSharedDevice(withResource: "https://graph.microsoft.com",
                                                                scopes: ["https://graph.microsoft.com/.default"]) }
            throws: { ($0 as? MSALErrorInfo)?.internalCode == .internalErrorInvalidParameter }
        await emulator.setSharedDeviceMode(true)
        let result = try await app.deviceTokenForSharedDevice(withResource: "https://graph.microsoft.com",
                                                              scopes: ["https://graph.microsoft.com/.default"])
        #expect(Self.claims(result.accessToken)["deviceid"] as? String == emulated.deviceId)
        await emulator.stop()
    }
}
