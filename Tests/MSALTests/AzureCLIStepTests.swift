import Foundation
import Testing
@testable import MSAL
import MSALTestSupport

/// The credential chain's Azure CLI step, on a scratch `AZURE_CONFIG_DIR` (az's profile and token cache, as az writes
/// them) and a stand-in `az` program: the cached token is used without running az and without writing az's files;
/// otherwise az runs, with a time limit and a clear error when it is missing or signed out.
@Suite("Credential chain: the Azure CLI step")
struct AzureCLIStepTests {
    static let tenant = "5f3a1c2e-7b4d-4e8a-9c61-2d0b8e4f7a13"
    static let scope = "https://graph.microsoft.com/.default"
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-az-\(UUID().uuidString)")
    var configDirectory: URL { directory.appendingPathComponent("azure") }
    var binDirectory: URL { directory.appendingPathComponent("bin") }

    init() throws {
        try FileManager.default.createDirectory(at: configDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: binDirectory, withIntermediateDirectories: true)
    }

    /// az's profile: the default subscription signed in as `user` (`type` user or servicePrincipal), with a BOM.
    func writeProfile(name: String, type: String) throws {
        let profile = #"{"subscriptions": [{"id": "6e5d4c3b-2a19-4f8e-9d7c-6b5a4f3e2d1c", "isDefault": true, "#
            + #""tenantId": "\#(Self.tenant)", "user": {"name": "\#(name)", "type": "\#(type)"}}]}"#
        try Data([0xEF, 0xBB, 0xBF] + Array(profile.utf8)).write(to: configDirectory.appendingPathComponent("azureProfile.json"))
    }

    /// az's token cache with one access token of `clientId` (for `username`'s account, or an app token).
    func writeCache(secret: String, clientId: String, username: String?, expiresIn: TimeInterval) throws {
        let now = Int(Date().timeIntervalSince1970)
        let home = username == nil ? "" : "uid.\(Self.tenant)"
        var accounts = ""
        if let username {
            accounts = #""a": {"home_account_id": "\#(home)", "environment": "login.example.com", "realm": "\#(Self.tenant)", "#
                + #""local_account_id": "uid", "username": "\#(username)", "authority_type": "MSSTS"}"#
        }
        let cache = #"{"AccessToken": {"t": {"credential_type": "AccessToken", "secret": "\#(secret)", "#
            + #""home_account_id": \#(username == nil ? "null" : "\"\(home)\""), "environment": "login.example.com", "#
            + #""client_id": "\#(clientId)", "target": "https://graph.microsoft.com/User.Read \#(Self.scope)", "#
            + #""realm": "\#(Self.tenant)", "token_type": "Bearer", "cached_at": "\#(now)", "#
            + #""expires_on": "\#(now + Int(expiresIn))", "extended_expires_on": "\#(now + Int(expiresIn))"}}, "#
            + #""Account": {\#(accounts)}, "RefreshToken": {}, "IdToken": {}, "AppMetadata": {}}"#
        try Data(cache.utf8).write(to: configDirectory.appendingPathComponent("msal_token_cache.json"))
    }

    /// A stand-in `az` that records its arguments and runs `body` (a shell fragment).
    func writeFakeAz(_ body: String) throws {
        let script = "#!/bin/sh\necho \"$@\" > \"\(directory.path)/az-arguments\"\n\(body)\n"
        let file = binDirectory.appendingPathComponent("az")
        try Data(script.utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
    }

    func chain(timeout: TimeInterval = 30) -> MSALCredentialChain {
        MSALCredentialChain(steps: [.azureCLI], environment: ["AZURE_CONFIG_DIR": configDirectory.path,
                                                               "PATH": binDirectory.path + ":/usr/bin:/bin"],
                            httpClient: nil, authorityHost: nil, managedIdentityProbeTimeout: 1, azureCLITimeout: timeout)
    }

    @Test func aUsersCachedTokenIsUsedWithoutRunningAzOrWritingItsFiles() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try writeProfile(name: "adele@contoso.com", type: "user")
        try writeCache(secret: "cached-user-token", clientId: AzureCLIProfile.clientId, username: "Adele@Contoso.com",
                       expiresIn: 3600)
        try writeFakeAz("exit 7")
        let cacheFile = configDirectory.appendingPathComponent("msal_token_cache.json")
        let before = try Data(contentsOf: cacheFile)
        let modified = try FileManager.default.attributesOfItem(atPath: cacheFile.path)[.modificationDate] as? Date
        let token = try await chain().token(scopes: [Self.scope])
        #expect(token.step == .azureCLI && token.accessToken == "cached-user-token")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("az-arguments").path))
        #expect(try Data(contentsOf: cacheFile) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: cacheFile.path)[.modificationDate] as? Date == modified)
        let left = try FileManager.default.contentsOfDirectory(atPath: configDirectory.path).sorted()
        #expect(left == ["azureProfile.json", "msal_token_cache.json"])
    }

    @Test func aServicePrincipalsAppTokenIsUsed() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let app = "7d3e1b2a-4c5f-4e6d-8a9b-0c1d2e3f4a5b"
        try writeProfile(name: app, type: "servicePrincipal")
        try writeCache(secret: "cached-app-token", clientId: app, username: nil, expiresIn: 3600)
        #expect(try await chain().token(scopes: [Self.scope]).accessToken == "cached-app-token")
    }

    @Test func aTokenAboutToExpireIsLeftToAzWhichRuns() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try writeProfile(name: "adele@contoso.com", type: "user")
        try writeCache(secret: "expiring", clientId: AzureCLIProfile.clientId, username: "adele@contoso.com", expiresIn: 120)
        let expires = Int(Date().timeIntervalSince1970) + 3600
        try writeFakeAz(#"echo '{"accessToken": "from-az", "expires_on": \#(expires), "tokenType": "Bearer"}'"#)
        let token = try await chain().token(scopes: [Self.scope])
        #expect(token.accessToken == "from-az")
        #expect(token.expiresOn.map { Int($0.timeIntervalSince1970) } == expires)
        let arguments = try String(contentsOf: directory.appendingPathComponent("az-arguments"), encoding: .utf8)
        #expect(arguments.trimmingCharacters(in: .whitespacesAndNewlines)
                == "account get-access-token --output json --scope \(Self.scope)")
    }

    @Test func azSignedOutMissingOrStuckIsAClearError() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try writeFakeAz("echo \"ERROR: Please run 'az login' to setup account.\" >&2; exit 1")
        await #expect { try await chain().token(scopes: [Self.scope]) } throws: { error in
            (error as? MSALErrorInfo)?.errorDescription.contains("not signed in") == true
        }
        try FileManager.default.removeItem(at: binDirectory.appendingPathComponent("az"))
        await #expect { try await chain().token(scopes: [Self.scope]) } throws: { error in
            (error as? MSALErrorInfo)?.errorDescription.contains("is not installed") == true
        }
        // A stuck az: the call ends at its limit, not when az would (az leaves a mark if it lives its 60 s).
        let outlived = directory.appendingPathComponent("stuck-outlived")
        try writeFakeAz("sleep 60; echo outlived > \"\(outlived.path)\"")
        await #expect { try await chain(timeout: 0.5).token(scopes: [Self.scope]) } throws: { error in
            (error as? MSALErrorInfo)?.errorDescription.contains("did not answer within") == true
        }
        #expect(!FileManager.default.fileExists(atPath: outlived.path), "the call waited for the stuck az")
    }

    @Test func azWhoseChildKeepsItsOutputOpenStillEndsAtTheLimit() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // As the real az: a shell script whose child (Python) inherits the outputs and outlives the limit. The child
        // leaves a mark if it lives its 60 s: a call that waited for the outputs to close would return only after it.
        let pidFile = directory.appendingPathComponent("child.pid")
        let outlived = directory.appendingPathComponent("outlived")
        try writeFakeAz("(sleep 60; echo outlived > \"\(outlived.path)\") &\necho $! > \"\(pidFile.path)\"\nwait")
        await #expect { try await chain(timeout: 0.5).token(scopes: [Self.scope]) } throws: { error in
            (error as? MSALErrorInfo)?.errorDescription.contains("did not answer within") == true
        }
        #expect(!FileManager.default.fileExists(atPath: outlived.path), "the call waited for the child's outputs to close")
        // The child went with the script (its whole process group was killed).
        let child = try #require(Int32(String(decoding: try Data(contentsOf: pidFile), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        try await eventually { Self.hasEnded(child) }
    }

    @Test func aFIFOProfileAndAHugeCacheCostNeitherAWaitNorTheirSize() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try writeFakeAz(#"echo '{"accessToken": "from-az", "expiresOn": "2099-01-01 00:00:00.000000"}'"#)
        // A FIFO at the profile's path: opened without blocking, refused as not a file; az runs instead.
        let profile = configDirectory.appendingPathComponent("azureProfile.json")
        #expect(mkfifo(profile.path, 0o600) == 0)
        try writeCache(secret: "cached", clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46", username: "ada@example.com",
                       expiresIn: 3600)
        #expect(try await chain(timeout: 20).token(scopes: [Self.scope]).accessToken == "from-az")
        // A 2 GiB cache file (sparse: no disk used) beside a valid profile: refused before it is read; az runs.
        try FileManager.default.removeItem(at: profile)
        try writeProfile(name: "ada@example.com", type: "user")
        let cache = try FileHandle(forWritingTo: configDirectory.appendingPathComponent("msal_token_cache.json"))
        try cache.truncate(atOffset: 2 << 30)
        try cache.close()
        #expect(throws: MSALErrorInfo.self) { try chain().azureCLICachedToken(scopes: [Self.scope]) }
        #expect(try await chain(timeout: 20).token(scopes: [Self.scope]).accessToken == "from-az")
    }

    /// Whether process `pid` is gone or a zombie (killed, waiting for whoever adopted it to reap it).
    static func hasEnded(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0 else { return true }
        let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }
}
