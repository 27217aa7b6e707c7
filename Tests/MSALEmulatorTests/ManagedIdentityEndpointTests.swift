import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

/// Managed identity endpoints: App Service, IMDS and Azure Arc, each in its own wire format.
@Suite("Managed identity endpoints")
struct ManagedIdentityEndpointTests {
    static let graph = EmulatorConfiguration.graphResource
    static let system = EmulatorConfiguration.systemAssignedIdentityClientId
    static let user = EmulatorConfiguration.userAssignedIdentityClientId

    static func appService(_ emulator: IdentityEmulator, _ client: TestClient, query: String = "", header: String? = nil,
                           resource: String = graph, version: String = "2019-08-01") async throws -> Reply {
        let path = "/msi/token?api-version=\(version)&resource=\(URLText.encode(resource))\(query)"
        return try await client.get(path, headers: ["X-IDENTITY-HEADER": header ?? emulator.identityHeader])
    }

    static func imds(_ client: TestClient, query: String = "", resource: String = graph, metadata: Bool = true,
                     path: String = "/metadata/identity/oauth2/token", headers: [String: String] = [:]) async throws -> Reply {
        var headers = headers
        if metadata { headers["Metadata"] = "true" }
        let version = path.hasPrefix("/arc/") ? "2020-06-01" : "2018-02-01"
        return try await client.get("\(path)?api-version=\(version)&resource=\(URLText.encode(resource))\(query)", headers: headers)
    }

    /// Checks an app token of a managed identity and lists users with it.
    static func expectIdentityToken(_ token: String, clientId: String, _ client: TestClient) async throws {
        let claims = Fixture.claims(token)
        let identity = try #require(EmulatorConfiguration.defaultManagedIdentities.first { $0.clientId == clientId })
        #expect(claims["aud"] as? String == graph)
        #expect(claims["idtyp"] as? String == "app")
        #expect(claims["appid"] as? String == clientId)
        #expect(claims["oid"] as? String == identity.objectId && claims["sub"] as? String == identity.objectId)
        #expect(claims["xms_mirid"] as? String == identity.resourceId)
        #expect(claims["tid"] as? String == EmulatorConfiguration.demoTenantId)
        #expect(claims["roles"] as? [String] == ["User.Read.All"])
        let users = try await client.get("/v1.0/users", headers: ["Authorization": "Bearer \(token)"])
        #expect(users.status == 200)
        #expect(((users.json["value"] as? [[String: Any]]) ?? []).contains { $0["userPrincipalName"] as? String == "adele@contoso.onmicrosoft.com" })
    }

    @Test func appServiceAnswersInItsShape() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let reply = try await Self.appService(emulator, client)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(Set(reply.json.keys) == ["access_token", "expires_on", "resource", "token_type", "client_id"])
        let expiresOn = try #require(reply.json["expires_on"] as? String)
        let seconds = try #require(Int(expiresOn)) - Int(Date().timeIntervalSince1970)
        #expect((86_000...86_400).contains(seconds))
        #expect(reply.json["resource"] as? String == Self.graph && reply.json["token_type"] as? String == "Bearer")
        #expect(reply.json["client_id"] as? String == Self.system)
        try await Self.expectIdentityToken(reply.json["access_token"] as? String ?? "", clientId: Self.system, client)

        let identity = try #require(EmulatorConfiguration.defaultManagedIdentities.first { $0.clientId == Self.user })
        for query in ["&client_id=\(Self.user)", "&object_id=\(identity.objectId)", "&mi_res_id=\(URLText.encode(identity.resourceId))"] {
            let selected = try await Self.appService(emulator, client, query: query)
            #expect(selected.status == 200 && selected.json["client_id"] as? String == Self.user, "\(query)")
            try await Self.expectIdentityToken(selected.json["access_token"] as? String ?? "", clientId: Self.user, client)
        }
    }

    @Test func appServiceRefusesAsAppServiceDoes() async throws {
        var config = EmulatorConfiguration.default
        config.identityHeader = "configured-identity-header"
        let emulator = try await IdentityEmulator.start(config)
        defer { Task { await emulator.stop() } }
        #expect(emulator.identityHeader == "configured-identity-header")
        let client = TestClient(emulator)
        let missing = try await client.get("/msi/token?api-version=2019-08-01&resource=\(URLText.encode(Self.graph))")
        #expect(missing.status == 401 && missing.json["statusCode"] as? Int == 401 && missing.json["message"] is String)
        let wrong = try await Self.appService(emulator, client, header: "not-the-identity-header")
        #expect(wrong.status == 401 && !wrong.text.contains("not-the-identity-header") && !wrong.text.contains("configured-identity-header"))
        let cases: [(String, Reply)] = [
            ("api-version", try await Self.appService(emulator, client, version: "2017-09-01")),
            ("no resource", try await client.get("/msi/token?api-version=2019-08-01", headers: ["X-IDENTITY-HEADER": emulator.identityHeader])),
            ("unknown identity", try await Self.appService(emulator, client, query: "&client_id=00000000-0000-0000-0000-000000000001")),
            ("unknown resource", try await Self.appService(emulator, client, resource: "https://nowhere.example")),
            ("two selectors", try await Self.appService(emulator, client, query: "&client_id=\(Self.user)&object_id=x")),
        ]
        for (name, reply) in cases {
            #expect(reply.status == 400, "\(name): \(reply.text)")
            #expect(reply.json["statusCode"] as? Int == 400 && reply.json["message"] is String && reply.json["error"] == nil, "\(name)")
        }
        #expect((cases[3].1.json["message"] as? String)?.contains("AADSTS500011") == true)
        let post = try await client.send("POST", "/msi/token", body: Data())
        #expect(post.status == 405)
    }

    @Test func imdsAnswersInItsShape() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let reply = try await Self.imds(client, resource: Self.graph + "/")
        #expect(reply.status == 200, "\(reply.text)")
        #expect(Set(reply.json.keys) == [
            "access_token", "client_id", "expires_in", "expires_on", "ext_expires_in", "not_before", "resource", "token_type",
        ])
        for key in ["expires_in", "expires_on", "ext_expires_in", "not_before"] {
            #expect((reply.json[key] as? String).flatMap { Int($0) } != nil, "\(key) is a string of digits")
        }
        #expect(reply.json["expires_in"] as? String == "86400")
        #expect(reply.json["resource"] as? String == Self.graph + "/")
        try await Self.expectIdentityToken(reply.json["access_token"] as? String ?? "", clientId: Self.system, client)

        let identity = try #require(EmulatorConfiguration.defaultManagedIdentities.first { $0.clientId == Self.user })
        for query in ["&client_id=\(Self.user)", "&object_id=\(identity.objectId)", "&msi_res_id=\(URLText.encode(identity.resourceId))"] {
            let selected = try await Self.imds(client, query: query)
            #expect(selected.status == 200 && selected.json["client_id"] as? String == Self.user, "\(query)")
        }
    }

    @Test func imdsRefusesAsImdsDoes() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let noMetadata = try await Self.imds(client, metadata: false)
        #expect(noMetadata.status == 400 && noMetadata.json["error"] as? String == "invalid_request")
        #expect(noMetadata.json["error_description"] as? String == "Required metadata header not specified")
        let unknown = try await Self.imds(client, query: "&client_id=00000000-0000-0000-0000-000000000001")
        #expect(unknown.status == 400)
        #expect(unknown.json["error"] as? String == "invalid_request" && unknown.json["error_description"] as? String == "Identity not found")
        let resource = try await Self.imds(client, resource: "https://nowhere.example")
        #expect(resource.status == 400 && resource.json["error"] as? String == "invalid_resource")
        let noResource = try await client.get("/metadata/identity/oauth2/token?api-version=2018-02-01", headers: ["Metadata": "true"])
        #expect(noResource.status == 400 && noResource.json["error"] as? String == "invalid_request")
        let noVersion = try await client.get("/metadata/identity/oauth2/token?resource=x", headers: ["Metadata": "true"])
        #expect(noVersion.status == 400 && noVersion.json["error"] as? String == "invalid_request")
    }

    @Test func imdsWithoutSystemIdentityUsesTheOnlyUserAssignedOne() async throws {
        var config = EmulatorConfiguration.default
        config.managedIdentities.removeAll(where: \.systemAssigned)
        let emulator = try await IdentityEmulator.start(config)
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let reply = try await Self.imds(client)
        #expect(reply.status == 200 && reply.json["client_id"] as? String == Self.user)
        await emulator.updateConfiguration { $0.managedIdentities.append(EmulatedManagedIdentity(
            clientId: "11111111-2222-4333-8444-555555555555", objectId: "66666666-7777-4888-8999-aaaaaaaaaaaa",
            resourceId: "/subscriptions/x/resourceGroups/y/providers/Microsoft.ManagedIdentity/userAssignedIdentities/second",
            displayName: "second"
        )) }
        let ambiguous = try await Self.imds(client)
        #expect(ambiguous.status == 400 && ambiguous.json["error_description"] as? String == "Identity not found")
    }

    @Test func azureArcChallengesWithAKeyFile() async throws {
        let emulator = try await IdentityEmulator.start()
        let directory = emulator.arcTokenDirectory
        let path = "/arc/metadata/identity/oauth2/token"
        let client = TestClient(emulator)
        let noMetadata = try await Self.imds(client, metadata: false, path: path)
        #expect(noMetadata.status == 400 && noMetadata.json["error"] as? String == "invalid_request")

        let challenge = try await Self.imds(client, path: path)
        #expect(challenge.status == 401)
        let header = try #require(challenge.headers["www-authenticate"])
        #expect(header.hasPrefix("Basic realm="))
        let file = String(header.dropFirst("Basic realm=".count))
        #expect(URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
        #expect(file.hasSuffix(".key"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let key = try String(contentsOfFile: file, encoding: .utf8)

        let reply = try await Self.imds(client, path: path, headers: ["Authorization": "Basic \(key)"])
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["expires_in"] as? String == "86400" && reply.json["token_type"] as? String == "Bearer")
        try await Self.expectIdentityToken(reply.json["access_token"] as? String ?? "", clientId: Self.system, client)

        // A user-assigned identity is echoed, so that a client can tell it was honoured.
        let selected = try await Self.imds(client, query: "&client_id=\(Self.user)", path: path, headers: ["Authorization": "Basic \(key)"])
        #expect(selected.json["client_id"] as? String == Self.user)
        #expect(selected.json["object_id"] as? String == EmulatorConfiguration.userAssignedIdentityObjectId)
        #expect(selected.json["msi_res_id"] as? String == EmulatorConfiguration.userAssignedIdentityResourceId)

        let wrong = try await Self.imds(client, path: path, headers: ["Authorization": "Basic not-the-key"])
        #expect(wrong.status == 401 && wrong.headers["www-authenticate"] == nil)
        // Keys expire; the emulator's directory goes when it stops.
        emulator.clock.advance(by: 3600)
        let expired = try await Self.imds(client, path: path, headers: ["Authorization": "Basic \(key)"])
        #expect(expired.status == 401)
        await emulator.stop()
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    @Test func configuredArcDirectoryIsUsedAndKept() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("arc-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = EmulatorConfiguration.default
        config.arcTokenDirectory = directory.path
        let emulator = try await IdentityEmulator.start(config)
        let challenge = try await Self.imds(TestClient(emulator), path: "/arc/metadata/identity/oauth2/token")
        #expect(challenge.headers["www-authenticate"]?.contains(directory.path) == true)
        await emulator.stop()
        #expect(FileManager.default.fileExists(atPath: directory.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func summaryAndFaults() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let summary = emulator.summary
        #expect(summary["identity_endpoint"] as? String == emulator.httpURL.absoluteString + "/msi/token")
        #expect(summary["identity_header"] as? String == emulator.identityHeader && emulator.identityHeader.count >= 32)
        #expect(summary["imds_endpoint"] as? String == emulator.httpURL.absoluteString)
        #expect(summary["arc_endpoint"] as? String == emulator.httpURL.absoluteString + "/arc/metadata/identity/oauth2/token")
        #expect(summary["arc_token_directory"] as? String == emulator.arcTokenDirectory.path)
        #expect(summary["federated_issuer"] as? String == emulator.httpURL.absoluteString + "/federated-issuer")
        #expect(summary["user_assigned_identity_client_ids"] as? [String] == [Self.user])
        emulator.injectFault(FaultRule(endpoint: .managedIdentity, status: 503, count: 1))
        let client = TestClient(emulator)
        #expect(try await Self.imds(client).status == 503)
        #expect(try await Self.imds(client).status == 200)
    }

    @Test func configurationDecodesManagedIdentitiesWithDefaults() throws {
        let json = #"{"managedIdentities": [{"clientId": "abc", "systemAssigned": true}], "identityHeader": "h"}"#
        let config = try JSONDecoder().decode(EmulatorConfiguration.self, from: Data(json.utf8))
        #expect(config.identityHeader == "h")
        let identity = try #require(config.managedIdentities.first)
        #expect(config.managedIdentities.count == 1 && identity.objectId == "abc" && identity.systemAssigned)
        #expect(identity.applicationPermissions.isEmpty && identity.resourceId.hasSuffix("/userAssignedIdentities/abc"))
        let defaults = try JSONDecoder().decode(EmulatorConfiguration.self, from: Data("{}".utf8))
        #expect(defaults.managedIdentities == EmulatorConfiguration.defaultManagedIdentities)
        #expect(defaults.identityHeader == nil && defaults.arcTokenDirectory == nil)
        #expect(defaults.lifetimes.managedIdentityToken == 86_400)
    }
}
