import Foundation
import MSAL
import MSALTesting
import Testing
@testable import MSALCore
import MSALTestSupport

/// The credential chain: the first step that applies answers; when none does, one error says why each was skipped.
@Suite("Credential chain")
struct CredentialChainTests {
    let provider = MSALScriptedIdentityProvider(host: "login-\(UUID().uuidString.prefix(8).lowercased()).example.com")
    static let scopes = ["https://graph.microsoft.com/.default"]

    @Test func environmentVariablesWithASecretAnswerFirst() async throws {
        let environment = ["AZURE_TENANT_ID": provider.tenant, "AZURE_CLIENT_ID": provider.clientId,
                           "AZURE_CLIENT_SECRET": "env-secret"]
        let chain = MSALCredentialChain(environment: environment, httpClient: provider, authorityHost: "https://\(provider.host)")
        let token = try await chain.token(scopes: Self.scopes)
        #expect(token.step == .environment)
        #expect(provider.tokenRequestBodies().first?["client_secret"] == "env-secret")
        #expect(!"\(token)".contains(token.accessToken))
    }

    @Test func workloadIdentityReadsTheTokenFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("msal-chain-\(UUID().uuidString)")
        try "aaa.bbb.ccc".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let environment = ["AZURE_TENANT_ID": provider.tenant, "AZURE_CLIENT_ID": provider.clientId,
                           "AZURE_FEDERATED_TOKEN_FILE": file.path]
        let chain = MSALCredentialChain(environment: environment, httpClient: provider, authorityHost: "https://\(provider.host)")
        let token = try await chain.token(scopes: Self.scopes)
        #expect(token.step == .workloadIdentity)
        #expect(provider.tokenRequestBodies().first?["client_assertion"] == "aaa.bbb.ccc")
    }

    @Test func managedIdentityAnswersWhenTheProbeDoes() async throws {
        let http = MSALRecordingHTTPClient { _ in
            ManagedIdentityTests.json(200, ["access_token": "mi-token", "expires_in": "3600", "token_type": "Bearer"])
        }
        let chain = MSALCredentialChain(environment: ["AZURE_POD_IDENTITY_AUTHORITY_HOST": "http://127.0.0.1:9"],
                                        httpClient: http)
        let token = try await chain.token(scopes: Self.scopes)
        #expect(token.step == .managedIdentity)
        #expect(token.accessToken == "mi-token")
        #expect(http.requests.first?.timeout == 1)
    }

    @Test func whenNothingAppliesOneErrorSaysWhyForEachStep() async throws {
        struct Unreachable: Error {}
        let http = MSALRecordingHTTPClient { _ in throw Unreachable() }
        let home = ScratchDirectory.path("chain-home")
        let chain = MSALCredentialChain(environment: ["MSAL_CACHE": "/nonexistent/msal-chain-cache.json", "HOME": home.path],
                                        httpClient: http)
        await #expect { try await chain.token(scopes: Self.scopes) } throws: { error in
            guard let info = error as? MSALErrorInfo else { return false }
            let text = info.errorDescription
            return text.contains("environment: AZURE_TENANT_ID and AZURE_CLIENT_ID are not both set")
                && text.contains("workload identity: AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_FEDERATED_TOKEN_FILE")
                && text.contains("managed identity: no managed identity endpoint answered")
                && text.contains("msal account: no account is signed in with the msal tool (msal login)")
                && text.contains("azure cli: the Azure CLI (az) is not installed")
        }
        // The probe was one request: no retries off Azure.
        #expect(http.requests.count == 1)
    }

    @Test func stepsCanBeNarrowed() async throws {
        let environment = ["AZURE_TENANT_ID": provider.tenant, "AZURE_CLIENT_ID": provider.clientId,
                           "AZURE_CLIENT_SECRET": "env-secret"]
        let chain = MSALCredentialChain(steps: [.msalAccount], environment: environment, httpClient: provider)
        await #expect(throws: MSALErrorInfo.self) { try await chain.token(scopes: Self.scopes) }
        #expect(provider.tokenRequests.isEmpty)
    }
}
