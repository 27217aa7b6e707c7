import Foundation
import Testing
@testable import MSALEmulator
@testable import MSALEmulatorCore
import MSALTestSupport

/// The part of Azure Resource Manager the Azure CLI signs in with, the Azure CLI's client, `.default` kept in the
/// answer's scopes, HTTPS issuers for managed identities, and the temporary CA directory removed on stop.
@Suite("Emulator: Azure Resource Manager and the Azure CLI's needs")
struct ResourceManagerTests {
    static let armScope = "https://management.core.windows.net//.default"
    let daemon = EmulatorConfiguration.daemonClientId

    private func appToken(_ client: TestClient, scope: String = armScope) async throws -> String {
        let reply = try await Confidential.clientCredentials(client, clientId: daemon, secret: "daemon-secret", scope: scope)
        #expect(reply.status == 200, "\(reply.text)")
        return reply.json["access_token"] as? String ?? ""
    }

    @Test func endpointDiscoveryNamesTheHTTPSAddressWhicheverListenerIsAsked() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        for path in ["/metadata/endpoints?api-version=2022-09-01", "//metadata/endpoints?api-version=2022-09-01"] {
            let reply = try await TestClient(emulator).get(path)
            #expect(reply.status == 200, "\(path): \(reply.text)")
            let body = reply.json
            let https = emulator.httpsURL.absoluteString
            #expect(body["resourceManager"] as? String == https + "/")
            let authentication = try #require(body["authentication"] as? [String: Any])
            #expect(authentication["loginEndpoint"] as? String == https + "/")
            #expect((authentication["audiences"] as? [String])?.first == EmulatorConfiguration.resourceManagerResource)
            #expect(body["suffixes"] is [String: Any])
            #expect(body["name"] is String)
        }
    }

    @Test func aServicePrincipalSeesItsTenantAndItsSubscription() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let token = try await appToken(client)
        let claims = Fixture.claims(token)
        #expect(claims["aud"] as? String == EmulatorConfiguration.resourceManagerResource)
        let bearer = ["Authorization": "Bearer \(token)"]

        let subscriptions = try await client.get("/subscriptions?api-version=2022-12-01", headers: bearer)
        #expect(subscriptions.status == 200, "\(subscriptions.text)")
        let list = try #require(subscriptions.json["value"] as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["subscriptionId"] as? String == EmulatorConfiguration.demoSubscriptionId)
        #expect(list.first?["id"] as? String == "/subscriptions/\(EmulatorConfiguration.demoSubscriptionId)")
        #expect(list.first?["tenantId"] as? String == EmulatorConfiguration.demoTenantId)
        #expect(list.first?["state"] as? String == "Enabled")
        #expect(EmulatorConfiguration.userAssignedIdentityResourceId.hasPrefix("/subscriptions/\(EmulatorConfiguration.demoSubscriptionId)/"))

        let one = try await client.get("/subscriptions/\(EmulatorConfiguration.demoSubscriptionId)?api-version=2022-12-01", headers: bearer)
        #expect(one.status == 200 && one.json["displayName"] as? String == "Contoso Demo")
        let unknown = try await client.get("/subscriptions/00000000-0000-0000-0000-000000000000?api-version=2022-12-01", headers: bearer)
        #expect(unknown.status == 404)
        #expect((unknown.json["error"] as? [String: Any])?["code"] as? String == "SubscriptionNotFound")

        let tenants = try await client.get("/tenants?api-version=2022-12-01", headers: bearer)
        let tenantList = try #require(tenants.json["value"] as? [[String: Any]])
        #expect(tenantList.map { $0["tenantId"] as? String } == [EmulatorConfiguration.demoTenantId])
        #expect(tenantList.first?["defaultDomain"] as? String == "contoso.onmicrosoft.com")
    }

    @Test func resourceManagerChecksTheBearerToken() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let missing = try await client.get("/subscriptions?api-version=2022-12-01")
        #expect(missing.status == 401)
        #expect(missing.headers["www-authenticate"]?.hasPrefix("Bearer ") == true)
        #expect((missing.json["error"] as? [String: Any])?["code"] as? String == "AuthenticationFailed")

        let graphToken = try await appToken(client, scope: "https://graph.microsoft.com/.default")
        let wrongAudience = try await client.get("/subscriptions?api-version=2022-12-01", headers: ["Authorization": "Bearer \(graphToken)"])
        #expect(wrongAudience.status == 401)
        #expect((wrongAudience.json["error"] as? [String: Any])?["code"] as? String == "InvalidAuthenticationTokenAudience")

        let forged = try await client.get("/tenants?api-version=2022-12-01", headers: ["Authorization": "Bearer a.b.c"])
        #expect(forged.status == 401)
    }

    @Test func theAzureCLIsClientSignsAUserInForResourceManagerAndItsDefaultScopeIsKept() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let client = TestClient(emulator)
        let reply = try await client.post("/organizations/oauth2/v2.0/token", form: [
            ("client_id", EmulatorConfiguration.azureCLIClientId), ("grant_type", "password"), ("username", emulator.username),
            ("password", emulator.password), ("scope", "\(Self.armScope) openid profile offline_access"), ("client_info", "1"),
        ])
        #expect(reply.status == 200, "\(reply.text)")
        let scopes = Set((reply.json["scope"] as? String ?? "").split(separator: " ").map(String.init))
        #expect(scopes.contains(Self.armScope))
        #expect(scopes.contains("https://management.core.windows.net//user_impersonation"))
        #expect(reply.json["foci"] as? String == "1")
        let token = reply.json["access_token"] as? String ?? ""
        let claims = Fixture.claims(token)
        #expect(claims["aud"] as? String == EmulatorConfiguration.resourceManagerResource)
        #expect((claims["scp"] as? String)?.split(separator: " ").contains("user_impersonation") == true)
        #expect((claims["scp"] as? String)?.contains(".default") == false)

        let tenants = try await client.get("/tenants?api-version=2022-12-01", headers: ["Authorization": "Bearer \(token)"])
        #expect((tenants.json["value"] as? [[String: Any]])?.map { $0["tenantId"] as? String } == [EmulatorConfiguration.demoTenantId])

        // Graph `.default` keeps `https://graph.microsoft.com/.default` beside the expanded permissions.
        let graph = try await client.post("/organizations/oauth2/v2.0/token", form: [
            ("client_id", emulator.clientId), ("grant_type", "password"), ("username", emulator.username),
            ("password", emulator.password), ("scope", "https://graph.microsoft.com/.default openid profile offline_access"),
        ])
        let graphScopes = Set((graph.json["scope"] as? String ?? "").split(separator: " ").map(String.init))
        #expect(graphScopes.contains("https://graph.microsoft.com/.default"), "\(graph.text)")
        #expect(graphScopes.contains("User.Read"))
    }

    @Test func managedIdentityTokensNameTheHTTPSIssuer() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        for resource in [EmulatorConfiguration.graphResource, EmulatorConfiguration.resourceManagerResource] {
            let reply = try await TestClient(emulator).get(
                "/msi/token?api-version=2019-08-01&resource=\(URLText.encode(resource))",
                headers: ["X-IDENTITY-HEADER": emulator.identityHeader])
            #expect(reply.status == 200, "\(resource): \(reply.text)")
            let claims = Fixture.claims(reply.json["access_token"] as? String ?? "")
            #expect((claims["iss"] as? String)?.hasPrefix(emulator.httpsURL.absoluteString + "/") == true, "\(claims["iss"] ?? "")")
            #expect(claims["aud"] as? String == resource)
        }
    }

    @Test func stoppingRemovesTheTemporaryCADirectoryButNotAGivenOne() async throws {
        let emulator = try await IdentityEmulator.start()
        let made = emulator.caCertificateURL.deletingLastPathComponent()
        #expect(FileManager.default.fileExists(atPath: emulator.caCertificateURL.path))
        await emulator.stop()
        #expect(!FileManager.default.fileExists(atPath: made.path))

        let given = FileManager.default.temporaryDirectory.appendingPathComponent("msal-ca-given-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: given) }
        let other = try await IdentityEmulator.start(caDirectory: given)
        await other.stop()
        #expect(FileManager.default.fileExists(atPath: other.caCertificateURL.path))
    }
}
