import Foundation
import MSAL
import MSALTesting
import Testing
@testable import MSALCore
import MSALTestSupport

/// Managed identity: the source the environment names, each source's request, retries, the Azure Arc handshake,
/// the cache, and hostile answers. The endpoints are scripted at MSAL's transport seam.
@Suite("Managed identity")
struct ManagedIdentityTests {
    static let appService = ["IDENTITY_ENDPOINT": "http://127.0.0.1:41000/msi/token", "IDENTITY_HEADER": "header-secret"]
    static let arc = ["IDENTITY_ENDPOINT": "http://127.0.0.1:40342/metadata/identity/oauth2/token",
                      "IMDS_ENDPOINT": "http://127.0.0.1:40342"]

    static func json(_ status: Int, _ object: [String: Any], headers: [String: String] = [:]) -> MSALHTTPResponse {
        let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return MSALHTTPResponse(statusCode: status, headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a },
                                body: body)
    }

    static func token(_ value: String = "mi-token-\(UUID().uuidString)", expiresIn: Int = 86_400) -> MSALHTTPResponse {
        json(200, ["access_token": value, "expires_in": String(expiresIn), "token_type": "Bearer",
                   "resource": "https://management.azure.com"])
    }

    func makeApp(_ http: MSALRecordingHTTPClient, environment: [String: String] = [:],
                 identity: MSALManagedIdentityId = .systemAssigned, arcDirectory: String = "/nonexistent",
                 clock: MSALTestClock = MSALTestClock()) throws -> MSALManagedIdentityApplication {
        let config = MSALManagedIdentityConfig()
        config.httpClient = http
        config.environment = environment
        config.clock = clock
        return try MSALManagedIdentityApplication(
            managedIdentity: identity, configuration: config, platform: MSALPlatformServices(httpClient: http),
            retry: ManagedIdentityRetryPolicy(maxRetries: 3, baseDelay: 0.01, maxDelay: 0.05), arcDirectory: arcDirectory)
    }

    func query(_ request: MSALHTTPRequest) -> [String: String] { queryItems(request.url) }

    func queryItems(_ url: URL) -> [String: String] {
        Dictionary((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                   uniquingKeysWith: { a, _ in a })
    }

    @Test func theSourceIsFoundAsMSALForPythonFindsIt() {
        #expect(ManagedIdentityEndpoint.source(in: [:]) == .imds)
        #expect(ManagedIdentityEndpoint.source(in: Self.appService) == .appService)
        #expect(ManagedIdentityEndpoint.source(in: Self.appService.merging(["IDENTITY_SERVER_THUMBPRINT": "AB"]) { a, _ in a })
            == .serviceFabric)
        #expect(ManagedIdentityEndpoint.source(in: ["MSI_ENDPOINT": "http://localhost:50342/oauth2/token"]) == .msiEndpoint)
        #expect(ManagedIdentityEndpoint.source(in: Self.arc) == .azureArc)
        #expect(ManagedIdentityEndpoint.source(in: ["IDENTITY_ENDPOINT": "", "IDENTITY_HEADER": "x"]) == .imds)
    }

    @Test func eachSourceGetsItsOwnRequest() throws {
        let imds = try ManagedIdentityEndpoint.make(resource: "https://vault.azure.net", identity: .userAssignedResourceId("/sub/x"),
                                                    environment: [:])
        #expect(imds.url.absoluteString.hasPrefix("http://169.254.169.254/metadata/identity/oauth2/token?"))
        #expect(imds.headers["Metadata"] == "true")
        #expect(imds.url.query?.contains("api-version=2018-02-01") == true)
        #expect(queryItems(imds.url)["msi_res_id"] == "/sub/x")
        let pod = try ManagedIdentityEndpoint.make(resource: "r", identity: .systemAssigned,
                                                   environment: ["AZURE_POD_IDENTITY_AUTHORITY_HOST": "http://127.0.0.1:2000/"])
        #expect(pod.url.absoluteString.hasPrefix("http://127.0.0.1:2000/metadata/identity/oauth2/token?"))
        let app = try ManagedIdentityEndpoint.make(resource: "r", identity: .userAssignedObjectId("oid-1"), environment: Self.appService)
        #expect(app.headers["X-IDENTITY-HEADER"] == "header-secret")
        #expect(app.url.query?.contains("api-version=2019-08-01") == true)
        #expect(app.url.query?.contains("object_id=oid-1") == true)
        let appResource = try ManagedIdentityEndpoint.make(resource: "r", identity: .userAssignedResourceId("/sub/y"),
                                                           environment: Self.appService)
        #expect(queryItems(appResource.url)["mi_res_id"] == "/sub/y")
        let msi = try ManagedIdentityEndpoint.make(resource: "r", identity: .userAssignedClientId("cid"),
                                                   environment: ["MSI_ENDPOINT": "http://localhost:50342/oauth2/token"])
        #expect(msi.method == "POST")
        #expect(String(decoding: msi.body ?? Data(), as: UTF8.self) == "resource=r&client_id=cid")
        #expect(throws: MSALErrorInfo.self) {
            try ManagedIdentityEndpoint.make(resource: "r", identity: .userAssignedObjectId("o"),
                                             environment: ["MSI_ENDPOINT": "http://localhost:50342/oauth2/token"])
        }
        #expect(throws: MSALErrorInfo.self) {
            try ManagedIdentityEndpoint.make(resource: "r", identity: .userAssignedClientId("c"),
                                             environment: Self.appService.merging(["IDENTITY_SERVER_THUMBPRINT": "AB"]) { a, _ in a })
        }
        #expect(throws: MSALErrorInfo.self) {
            try ManagedIdentityEndpoint.make(resource: "r", identity: .systemAssigned,
                                             environment: ["IDENTITY_ENDPOINT": "file:///etc/passwd", "IDENTITY_HEADER": "h"])
        }
        #expect(ManagedIdentityEndpoint.resource(fromScopes: ["https://graph.microsoft.com/.default"]) == "https://graph.microsoft.com")
        #expect(ManagedIdentityEndpoint.resource(fromScopes: ["User.Read"]) == nil)
        #expect(MSALManagedIdentityParameters(scopes: ["a/.default", "b/.default"]) == nil)
    }

    @Test func aTokenIsCachedPerResourceAndIdentity() async throws {
        let http = MSALRecordingHTTPClient { _ in Self.token() }
        let app = try makeApp(http)
        let first = try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "https://management.azure.com"))
        #expect(first.tokenSource == .identityProvider)
        let second = try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "https://management.azure.com"))
        #expect(second.accessToken == first.accessToken)
        #expect(second.tokenSource == .cache)
        #expect(http.requests.count == 1)
        let other = try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "https://vault.azure.net"))
        #expect(other.accessToken != first.accessToken)
        #expect(http.requests.count == 2)
        let forced = MSALManagedIdentityParameters(resource: "https://management.azure.com")
        forced.forceRefresh = true
        _ = try await app.acquireTokenForManagedIdentity(with: forced)
        #expect(http.requests.count == 3)
    }

    @Test func concurrentRequestsSendOne() async throws {
        // The one request is held until all ten callers wait for it: none can have been answered from the cache.
        let gate = Gate()
        let http = MSALRecordingHTTPClient { _ in
            try await gate.pass()
            return Self.token()
        }
        let app = try makeApp(http)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 {
                group.addTask { try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "r")).accessToken }
            }
            try await gate.waitForArrivals(1)
            try await eventually("ten callers waiting for one request") { await app.engine.acquisition.flights.callers == 10 }
            gate.openGate()
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(http.requests.count == 1)
    }

    @Test(arguments: [410, 404, 429, 500, 503])
    func imdsIsRetriedWithBackOff(status: Int) async throws {
        let calls = LockedCounter()
        let http = MSALRecordingHTTPClient { _ in
            calls.increment() < 2 ? Self.json(status, ["error": "busy"]) : Self.token("after-retries")
        }
        let result = try await makeApp(http).acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "r"))
        #expect(result.accessToken == "after-retries")
        #expect(http.requests.count == 3)
    }

    @Test func aPersistentServerErrorEndsAfterTheRetries() async throws {
        let http = MSALRecordingHTTPClient { _ in Self.json(500, ["error": "unavailable", "error_description": "IMDS is down"]) }
        await #expect { try await makeApp(http).acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "r")) } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.code == .serverError && info?.httpStatusCode == 500 && info?.errorDescription.contains("IMDS is down") == true
        }
        #expect(http.requests.count == 4)
    }

    @Test func anUnreachableEndpointIsATransportErrorAfterTheRetries() async throws {
        struct Refused: Error {}
        let http = MSALRecordingHTTPClient { _ in throw Refused() }
        await #expect { try await makeApp(http).acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "r")) } throws: { error in
            (error as? MSALErrorInfo) != nil
        }
        #expect(http.requests.count == 4)
    }

    @Test(arguments: [
        MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "text/html"], body: Data("<html>proxy login</html>".utf8)),
        ManagedIdentityTests.json(200, ["token_type": "Bearer", "expires_in": "3600"]),
        ManagedIdentityTests.json(200, ["access_token": "t"]),
        ManagedIdentityTests.json(200, ["access_token": "t", "expires_in": "-5"]),
        ManagedIdentityTests.json(200, ["access_token": "t", "expires_in": "3600", "token_type": "pop"]),
    ])
    func answersThatAreNotATokenAreInvalidResponses(response: MSALHTTPResponse) async throws {
        let http = MSALRecordingHTTPClient { _ in response }
        await #expect { try await makeApp(http).acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "r")) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidResponse
        }
        #expect(http.requests.count == 1)
    }

    @Test func appServiceSendsItsHeaderAndReadsExpiresOn() async throws {
        let clock = MSALTestClock()
        let expiresOn = Int(clock.now().timeIntervalSince1970) + 3600
        let http = MSALRecordingHTTPClient { _ in
            Self.json(200, ["access_token": "app-service-token", "expires_on": String(expiresOn), "token_type": "Bearer"])
        }
        let app = try makeApp(http, environment: Self.appService, identity: .userAssignedClientId("uami-client"), clock: clock)
        #expect(app.source == .appService)
        let result = try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "https://graph.microsoft.com"))
        #expect(result.accessToken == "app-service-token")
        #expect(Int(result.expiresOn.timeIntervalSince1970) == expiresOn)
        let request = try #require(http.requests.first)
        #expect(request.headers["X-IDENTITY-HEADER"] == "header-secret")
        #expect(query(request)["client_id"] == "uami-client")
        #expect(!"\(result)".contains("app-service-token"))
    }

    @Test func azureArcAnswersTheChallengeWithTheKeyFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-arc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("abc.key")
        try "arc-key-content".write(to: keyFile, atomically: true, encoding: .utf8)
        let http = MSALRecordingHTTPClient { request in
            if request.headers["Authorization"] == "Basic arc-key-content" { return Self.token("arc-token") }
            return MSALHTTPResponse(statusCode: 401, headers: ["WWW-Authenticate": "Basic realm=\(keyFile.path)"], body: Data())
        }
        let app = try makeApp(http, environment: Self.arc, arcDirectory: directory.path)
        #expect(app.source == .azureArc)
        let result = try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "r"))
        #expect(result.accessToken == "arc-token")
        #expect(http.requests.count == 2)
    }

    @Test func azureArcMustConfirmAUserAssignedIdentity() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-arc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("k.key")
        try "key".write(to: keyFile, atomically: true, encoding: .utf8)
        for (echo, accepted) in [(nil, false), ("someone-else", false), ("UAMI-CLIENT", true)] as [(String?, Bool)] {
            let http = MSALRecordingHTTPClient { request in
                guard request.headers["Authorization"] != nil else {
                    return MSALHTTPResponse(statusCode: 401, headers: ["WWW-Authenticate": "Basic realm=\(keyFile.path)"])
                }
                var body: [String: Any] = ["access_token": "arc-token", "expires_in": "3600", "token_type": "Bearer"]
                if let echo { body["client_id"] = echo }
                return Self.json(200, body)
            }
            let app = try makeApp(http, environment: Self.arc, identity: .userAssignedClientId("uami-client"),
                                  arcDirectory: directory.path)
            let outcome = try? await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "r"))
            #expect((outcome != nil) == accepted, "echo \(echo ?? "none")")
        }
    }

    @Test func azureArcChallengesOutsideTheDirectoryOrTooLargeAreRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-arc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = directory.appendingPathComponent("big.key")
        try Data(repeating: 65, count: 5000).write(to: big)
        for realm in ["/etc/shadow", "\(directory.path)/../outside.key", "\(directory.path)/secret.txt", big.path, "garbage"] {
            let http = MSALRecordingHTTPClient { _ in
                MSALHTTPResponse(statusCode: 401, headers: ["WWW-Authenticate": "Basic realm=\(realm)"], body: Data())
            }
            let app = try makeApp(http, environment: Self.arc, arcDirectory: directory.path)
            await #expect { try await app.acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: "r")) } throws: { error in
                (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidResponse
            }
            #expect(http.requests.count == 1, "realm \(realm)")
        }
    }

    @Test func anEmptyResourceOrUserAssignedIdIsRefused() async throws {
        let http = MSALRecordingHTTPClient { _ in Self.token() }
        await #expect { try await makeApp(http).acquireTokenForManagedIdentity(with: MSALManagedIdentityParameters(resource: " ")) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidParameter
        }
        #expect(throws: MSALErrorInfo.self) { try makeApp(http, identity: .userAssignedClientId("")) }
        #expect(http.requests.isEmpty)
    }
}

/// A counter shared across tasks: `increment()` returns the value before.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value - 1 }
}
