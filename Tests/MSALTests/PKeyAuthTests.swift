import Crypto
import Foundation
import MSALSupport
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALEmulator
import MSALEmulatorCore

/// PKeyAuth: the challenge read and answered as MSAL for iOS/macOS's common core does (its test vectors), and a
/// tenant with device-based Conditional Access answered at the token endpoint and in the embedded web view, with and
/// without a registration of the device.
@Suite("PKeyAuth (device authentication)", .serialized)
struct PKeyAuthTests {
    // MARK: The challenge and its answer (the common core's vectors)

    /// `IdentityCore/tests/MSIDPKeyAuthHandlerTests.m:57-118`: the header's fields in any order; a header whose first
    /// name does not start with a letter or a digit is no challenge.
    @Test(arguments: [
        #"PKeyAuth CertAuthorities="OU=82dbaca4-3e81-46ca-9c73-0950c1eaca97,CN=MS-Organization-Access,DC=windows,DC=net", Version="1.0", Context="rQIIAeNiAA", nonce="XNme6ZlnnZgIS4bMHPzY4RihkHFqCH6s1hnRgjv8Y0Q""#,
        #"PKeyAuth Version="1.0", Context="rQIIAeNiAA", nonce="XNme6ZlnnZgIS4bMHPzY4RihkHFqCH6s1hnRgjv8Y0Q", CertAuthorities="OU=82dbaca4-3e81-46ca-9c73-0950c1eaca97,CN=MS-Organization-Access,DC=windows,DC=net""#,
        #"PKeyAuth  nonce="XNme6ZlnnZgIS4bMHPzY4RihkHFqCH6s1hnRgjv8Y0Q",  Version="1.0", CertAuthorities="OU=82dbaca4-3e81-46ca-9c73-0950c1eaca97,CN=MS-Organization-Access,DC=windows,DC=net",  Context="rQIIAeNiAA""#,
    ])
    func theHeaderIsReadInAnyOrder(header: String) throws {
        let challenge = try #require(PKeyAuthChallenge(wwwAuthenticate: header))
        #expect(challenge.fields.count == 4)
        #expect(challenge.context == "rQIIAeNiAA" && challenge.version == "1.0")
        #expect(challenge.nonce == "XNme6ZlnnZgIS4bMHPzY4RihkHFqCH6s1hnRgjv8Y0Q")
        #expect(PKeyAuthChallenge(wwwAuthenticate: "PKeyAuth qweqwe") == nil)
        #expect(PKeyAuthChallenge(wwwAuthenticate: "PKeyAuth \"quoted\"") == nil)
        #expect(PKeyAuthChallenge(wwwAuthenticate: "Bearer realm=\"x\"") == nil)
    }

    /// `MSIDPKeyAuthHandlerTests.m:124`: the web view's challenge, its `CertAuthorities` percent-encoded.
    @Test func theWebViewChallengeIsRead() throws {
        let url = URL(string: "urn:http-auth:PKeyAuth?CertAuthorities=OU%3d82dbaca4-3e81-46ca-9c73-0950c1eaca97%2cCN%3dMS-Organization-Access%2cDC%3dwindows%2cDC%3dnet&Version=1.0&Context=SOMECONTEXT&nonce=_bQWemEag2Zze-FR1kw2r-XyrDYxmQB2PftHsshTEJc&SubmitUrl=https%3a%2f%2flogin.microsoftonline.com%2fcommon%2fDeviceAuthPKeyAuth&TenantId=f645ad92-e38d-4d1a-b510-d1b09a74a8ca")!
        let challenge = try #require(PKeyAuthChallenge(url: url))
        #expect(challenge.context == "SOMECONTEXT" && challenge.version == "1.0")
        #expect(challenge.submitURL?.absoluteString == "https://login.microsoftonline.com/common/DeviceAuthPKeyAuth")
        #expect(challenge.tenantId == "f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
        #expect(challenge.field("CertAuthorities") == "OU=82dbaca4-3e81-46ca-9c73-0950c1eaca97,CN=MS-Organization-Access,DC=windows,DC=net")
        // No SubmitUrl: "Incomplete PKeyAuth challenge received." (MSIDPKeyAuthHandler.m:57-64).
        #expect(PKeyAuthChallenge(url: URL(string: "urn:http-auth:PKeyAuth?Context=x&Version=1.0")!) == nil)
    }

    static let challenge = PKeyAuthChallenge(fields: [
        "Context": "some context", "Version": "1.0", "nonce": "XNme6ZlnnZgIS4bMHPzY4RihkHFqCH6s1hnRgjv8Y0Q",
        "CertAuthorities": "OU=82dbaca4-3e81-46ca-9c73-0950c1eaca97,CN=MS-Organization-Access,DC=windows,DC=net",
    ])

    /// A registration whose certificate's issuer names `unit`.
    static func registration(issuerUnit unit: String) throws -> (MSALWorkplaceJoinRegistration, P256.Signing.PublicKey) {
        let key = P256.Signing.PrivateKey()
        let certificate = Data("0\u{1}issuer OU=\(unit) CN=MS-Organization-Access subject CN=device".utf8)
        return (MSALWorkplaceJoinRegistration(deviceId: "device", tenantId: "tenant", certificate: certificate,
                                              key: try MSALP256DeviceRegistrationKey(rawRepresentation: key.rawRepresentation)),
                key.publicKey)
    }

    /// `MSIDPkeyAuthHelperTests.m:313-350`: not registered, or registered with another issuer: the empty form, with
    /// its two spaces.
    @Test func withoutAnAcceptedRegistrationTheAnswerIsTheEmptyForm() throws {
        let audience = URL(string: "https://someurl.com")!
        #expect(PKeyAuthResponse.authorization(Self.challenge, audience: audience, registration: nil, now: Date())
            == #"PKeyAuth  Context="some context", Version="1.0""#)
        let (other, _) = try Self.registration(issuerUnit: "00000000-1111-2222-3333-444444444444")
        #expect(PKeyAuthResponse.authorization(Self.challenge, audience: audience, registration: other, now: Date())
            == #"PKeyAuth  Context="some context", Version="1.0""#)
        // An algorithm the challenge does not accept (MSIDPkeyAuthHelperTests.m:144-173).
        let (accepted, _) = try Self.registration(issuerUnit: "82DBACA4-3E81-46CA-9C73-0950C1EACA97")
        var rsaOnly = Self.challenge
        rsaOnly.fields["SupportedAlgs"] = "RS256"
        #expect(PKeyAuthResponse.authorization(rsaOnly, audience: audience, registration: accepted, now: Date())
            == #"PKeyAuth  Context="some context", Version="1.0""#)
    }

    /// `MSIDPkeyAuthHelperTests.m:115-201`: with the registration the challenge accepts, a JWT signed with the device
    /// key, its certificate in `x5c`, `aud` the address without its query, the challenge's nonce, `iat` a string.
    @Test func withARegistrationTheAnswerIsASignedToken() throws {
        let (registration, publicKey) = try Self.registration(issuerUnit: "82dbaca4-3e81-46ca-9c73-0950c1eaca97")
        let audience = URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/token?slice=testslice")!
        let answer = PKeyAuthResponse.authorization(Self.challenge, audience: audience, registration: registration,
                                                    now: Date(timeIntervalSince1970: 5))
        #expect(answer.hasPrefix("PKeyAuth AuthToken=\"") && answer.hasSuffix(#"", Context="some context", Version="1.0""#))
        let token = try #require(answer.split(separator: "\"").dropFirst().first.map(String.init))
        let parts = token.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try #require(try JSONSerialization.jsonObject(with: MSALSupport.Base64URL.decode(parts[0]) ?? Data()) as? [String: Any])
        let payload = try #require(try JSONSerialization.jsonObject(with: MSALSupport.Base64URL.decode(parts[1]) ?? Data()) as? [String: Any])
        #expect(header["alg"] as? String == "ES256" && header["typ"] as? String == "JWT")
        #expect(header["x5c"] as? [String] == [registration.certificate.base64EncodedString()])
        #expect(payload["aud"] as? String == "https://login.microsoftonline.com/common/oauth2/v2.0/token")
        #expect(payload["nonce"] as? String == "XNme6ZlnnZgIS4bMHPzY4RihkHFqCH6s1hnRgjv8Y0Q")
        #expect(payload["iat"] as? String == "5")
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(MSALSupport.Base64URL.decode(parts[2])))
        #expect(publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))
    }

    // MARK: Against the emulator's device-based Conditional Access

    static func emulator() async throws -> IdentityEmulator {
        try await BrokerEmulatorFixture.start(policy: .compliantDevice)
    }

    /// The transport, each request it sent recorded.
    struct Recording: MSALHTTPClient {
        let inner: any MSALHTTPClient
        let sent = LockedBox<[MSALHTTPRequest]>([])
        func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
            sent.withLock { $0.append(request) }
            return try await inner.send(request)
        }
        /// The `Authorization` values sent to `path`.
        func answers(to path: String) -> [String] {
            sent.get().filter { $0.url.path.lowercased().hasSuffix(path.lowercased()) }.compactMap { $0.headers["Authorization"] }
        }
    }

    static func app(_ emulator: IdentityEmulator, registration: EmulatedDeviceRegistration?,
                    http recording: Recording? = nil) throws -> MSALPublicClientApplication {
        let http = recording ?? Recording(inner: MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:]))
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "msauth.com.example.msaldemo://auth",
                                                       authority: try MSALAADAuthority(url: emulator.authorityURL))
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        if let registration {
            config.brokerOptions = MSALBrokerOptions(workplaceJoin: MSALInMemoryWorkplaceJoinStore(
                [try DeviceRegistrationTests.registration(registration)]))
        }
        return try MSALPublicClientApplication(configuration: config, platform: MSALPlatformServices(
            httpClient: http, webAuthenticator: EmulatorAutoApproveAuthenticator(httpClient: http),
            embeddedWebAuthenticator: HeadlessEmbeddedWebView(http: http)))
    }

    static func parameters(embedded: Bool) -> MSALInteractiveTokenParameters {
        let webview = MSALWebviewParameters()
        webview.webviewType = embedded ? .wkWebView : .default
        return MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
    }

    /// The token endpoint's challenge (HTTP 401, `WWW-Authenticate: PKeyAuth`) answered with the registered device's
    /// signature: the tenant's compliant-device policy passes, the token names the device, and a refresh passes too.
    /// Unregistered, the empty answer lets the request go on and the policy refuses it (AADSTS53000).
    @Test(arguments: [false, true])
    func aDeviceCATenantIsAnsweredRegisteredAndUnregistered(embedded: Bool) async throws {
        let emulator = try await Self.emulator()
        let transport = { Recording(inner: MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])) }
        let plain = transport()
        let unregistered = try Self.app(emulator, registration: nil, http: plain)
        let refused = await #expect(throws: MSALErrorInfo.self) {
            try await unregistered.acquireToken(with: Self.parameters(embedded: embedded))
        }
        #expect(refused?.stsErrorCodes == ["53000"])
        // The challenges were answered with the empty form: in the web view (its SubmitUrl) and at the token endpoint.
        #expect(plain.answers(to: "/common/DeviceAuthPKeyAuth").allSatisfy { $0.hasPrefix("PKeyAuth  Context=") })
        #expect(plain.answers(to: "/common/DeviceAuthPKeyAuth").count == (embedded ? 1 : 0))
        #expect(plain.answers(to: "/oauth2/v2.0/token").count == 1)
        #expect(plain.answers(to: "/oauth2/v2.0/token").allSatisfy { $0.hasPrefix("PKeyAuth  Context=") })

        let registration = try await emulator.registerDevice()
        let signing = transport()
        let app = try Self.app(emulator, registration: registration, http: signing)
        let result = try await app.acquireToken(with: Self.parameters(embedded: embedded))
        #expect(signing.answers(to: "/common/DeviceAuthPKeyAuth").count == (embedded ? 1 : 0))
        #expect(signing.answers(to: "/common/DeviceAuthPKeyAuth").allSatisfy { $0.hasPrefix("PKeyAuth AuthToken=") })
        #expect(signing.answers(to: "/oauth2/v2.0/token").allSatisfy { $0.hasPrefix("PKeyAuth AuthToken=") })
        #expect(result.metadata.tokenSource == .identityProvider)
        #expect(AuthenticatorBrokerTests.deviceId(result.accessToken) == registration.deviceId)
        let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        silent.forceRefresh = true
        let refreshed = try await app.acquireTokenSilent(with: silent)
        #expect(AuthenticatorBrokerTests.deviceId(refreshed.accessToken) == registration.deviceId)
        await emulator.stop()
    }

    /// A forged answer (signed by another key) is refused, not taken as no device.
    @Test func aForgedAnswerIsRefused() async throws {
        let emulator = try await Self.emulator()
        var registration = try await emulator.registerDevice()
        registration.privateKey = P256.Signing.PrivateKey().rawRepresentation
        let app = try Self.app(emulator, registration: registration)
        let refused = await #expect(throws: MSALErrorInfo.self) { try await app.acquireToken(with: Self.parameters(embedded: false)) }
        #expect(refused?.stsErrorCodes == ["50012"])
        await emulator.stop()
    }
}
