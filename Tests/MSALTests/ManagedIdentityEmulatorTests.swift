import Foundation
import MSALTestSupport
import MSAL
import MSALEmulator
import MSALTesting
import Testing
@testable import MSALCore

/// ``MSALManagedIdentityApplication`` against the emulator's App Service, IMDS and Azure Arc endpoints (a real HTTP
/// server on 127.0.0.1), then Microsoft Graph with the token; and workload identity: a confidential client whose
/// credential is a federated token file.
@Suite("Managed identity and workload identity against the emulator", .serialized)
struct ManagedIdentityEmulatorTests {
    static let graph = "https://graph.microsoft.com"

    func makeApp(_ identity: MSALManagedIdentityId = .systemAssigned, environment: [String: String], http: MSALRecordingHTTPClient,
                 arcDirectory: String = "/var/opt/azcmagent/tokens") throws -> MSALManagedIdentityApplication {
        let config = MSALManagedIdentityConfig()
        config.httpClient = http
        config.environment = environment
        return try MSALManagedIdentityApplication(
            managedIdentity: identity, configuration: config, platform: MSALPlatformServices(httpClient: http),
            retry: ManagedIdentityRetryPolicy(maxRetries: 1, baseDelay: 0.01, maxDelay: 0.05), arcDirectory: arcDirectory)
    }

    /// `GET /v1.0/users` with the token: the status and the user principal names.
    func users(_ emulator: IdentityEmulator, _ token: MSALAppTokenResult) async throws -> (Int, [String]) {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/v1.0/users")!
        let (status, _, body) = try await NoRedirectFetcher.fetch(url, headers: ["Authorization": token.authorizationHeader])
        let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        return (status, (object?["value"] as? [[String: Any]])?.compactMap { $0["userPrincipalName"] as? String } ?? [])
    }

    /// The `appid` of a token.
    func appId(_ token: MSALAppTokenResult) -> String? {
        let parts = token.accessToken.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(String(parts[1])),
              let claims = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return claims["appid"] as? String
    }

    /// Gets a Graph token, lists users with it, and gets it again from the cache without a request.
    func acquireAndUse(_ app: MSALManagedIdentityApplication, _ emulator: IdentityEmulator, http: MSALRecordingHTTPClient,
                       expectedClientId: String) async throws {
        let token = try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: Self.graph))
        #expect(token.tokenSource == .identityProvider)
        #expect(token.tenantId == EmulatorConfiguration.demoTenantId)
        #expect(appId(token) == expectedClientId)
        let lifetime = token.expiresOn.timeIntervalSinceNow
        #expect(lifetime > 86_000 && lifetime <= 86_400)
        let (status, names) = try await users(emulator, token)
        #expect(status == 200)
        #expect(names.contains(emulator.username))
        http.reset()
        let again = try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(scopes: [Self.graph + "/.default"])!)
        #expect(again.tokenSource == .cache && again.accessToken == token.accessToken)
        #expect(http.paths.isEmpty)
    }

    static let userAssigned: [MSALManagedIdentityId] = [
        .userAssignedClientId(EmulatorConfiguration.userAssignedIdentityClientId),
        .userAssignedObjectId(EmulatorConfiguration.userAssignedIdentityObjectId),
        .userAssignedResourceId(EmulatorConfiguration.userAssignedIdentityResourceId),
    ]

    @Test func appServiceSystemAndUserAssigned() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        for identity in [MSALManagedIdentityId.systemAssigned] + Self.userAssigned {
            let http = MSALRecordingHTTPClient()
            let app = try makeApp(identity, environment: emulator.appServiceEnvironment, http: http)
            #expect(app.source == .appService)
            let expected = identity == .systemAssigned
                ? EmulatorConfiguration.systemAssignedIdentityClientId : EmulatorConfiguration.userAssignedIdentityClientId
            try await acquireAndUse(app, emulator, http: http, expectedClientId: expected)
        }
    }

    @Test func imdsSystemAndUserAssigned() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        for identity in [MSALManagedIdentityId.systemAssigned] + Self.userAssigned {
            let http = MSALRecordingHTTPClient()
            let app = try makeApp(identity, environment: emulator.imdsEnvironment, http: http)
            #expect(app.source == .imds)
            let expected = identity == .systemAssigned
                ? EmulatorConfiguration.systemAssignedIdentityClientId : EmulatorConfiguration.userAssignedIdentityClientId
            try await acquireAndUse(app, emulator, http: http, expectedClientId: expected)
        }
    }

    @Test func azureArcAnswersItsChallengeFromTheKeyFile() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let app = try makeApp(environment: emulator.arcEnvironment, http: http, arcDirectory: emulator.arcTokenDirectory.path)
        #expect(app.source == .azureArc)
        let token = try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: Self.graph))
        // The challenge, then the request with the key.
        #expect(http.requests.count == 2)
        #expect(http.requests.last?.headers["Authorization"]?.hasPrefix("Basic ") == true)
        #expect(try await users(emulator, token).0 == 200)
        #expect(appId(token) == EmulatorConfiguration.systemAssignedIdentityClientId)
    }

    @Test func azureArcKeyFilesOutsideTheAgentDirectoryAreNotRead() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        // The client's directory is the agent's (/var/opt/azcmagent/tokens); the emulator's challenge names another.
        let app = try makeApp(environment: emulator.arcEnvironment, http: MSALRecordingHTTPClient())
        await #expect { try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: Self.graph)) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidResponse
        }
    }

    @Test func refusalsBecomeTypedErrors() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        var wrongHeader = emulator.appServiceEnvironment
        wrongHeader["IDENTITY_HEADER"] = "not-the-identity-header"
        let appService = try makeApp(environment: wrongHeader, http: MSALRecordingHTTPClient())
        await #expect { try await appService.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: Self.graph)) } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.httpStatusCode == 401 && !(info?.errorDescription.contains("not-the-identity-header") ?? true)
        }
        let unknown = try makeApp(.userAssignedClientId("00000000-0000-0000-0000-000000000001"), environment: emulator.imdsEnvironment,
                                  http: MSALRecordingHTTPClient())
        await #expect { try await unknown.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: Self.graph)) } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.httpStatusCode == 400 && info?.oauthError == "invalid_request"
                && info?.errorDescription.contains("Identity not found") == true
        }
        let resource = try makeApp(environment: emulator.imdsEnvironment, http: MSALRecordingHTTPClient())
        await #expect { try await resource.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "https://nowhere.example")) } throws: { error in
            (error as? MSALErrorInfo)?.oauthError == "invalid_resource"
        }
    }

    func daemon(_ emulator: IdentityEmulator, tokenFile: String, http: MSALRecordingHTTPClient) throws -> MSALConfidentialClientApplication {
        let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
        let config = MSALConfidentialClientApplicationConfig(
            clientId: EmulatorConfiguration.daemonClientId, clientCredential: .workloadIdentity(tokenFile: tokenFile, environment: [:]),
            authority: try MSALAuthority(url: url))
        config.httpClient = http
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        return try MSALConfidentialClientApplication(configuration: config)
    }

    @Test func workloadIdentityTokenFileAuthenticatesTheDaemon() async throws {
        let emulator = try await startEmulator()
        defer { Task { await emulator.stop() } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-wi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("azure-identity-token")
        try Data(try await emulator.federatedToken(subject: EmulatorConfiguration.daemonFederatedSubject).utf8).write(to: file)

        let http = MSALRecordingHTTPClient()
        let app = try daemon(emulator, tokenFile: file.path, http: http)
        let scopes = ["https://graph.microsoft.com/.default"]
        let token = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: scopes))
        #expect(token.tokenSource == .identityProvider)
        #expect(try await users(emulator, token).0 == 200)
        let form = String(decoding: http.requests.last?.body ?? Data(), as: UTF8.self)
        #expect(form.contains("client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer"))

        // A token for a subject the app does not trust is refused with Entra's code.
        try Data(try await emulator.federatedToken(subject: "system:serviceaccount:default:intruder").utf8).write(to: file)
        let forced = MSALClientCredentialParameters(scopes: scopes)
        forced.forceRefresh = true
        await #expect { try await app.acquireTokenForClient(with: forced) } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.oauthError == "invalid_client" && info?.stsErrorCodes == ["700213"]
        }
    }
}
