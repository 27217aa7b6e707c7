import Foundation

/// The Azure CLI step of ``MSALCredentialChain``: the sign-in most Azure developers already have, reused.
///
/// A valid access token for the requested scopes in the Azure CLI's own token cache (`msal_token_cache.json` in
/// `AZURE_CONFIG_DIR`, else `~/.azure`; read under the cache's cross-process lock, never written) is used directly,
/// for the account and tenant of az's default subscription. Otherwise `az account get-access-token --scope ...` runs,
/// with a time limit. The Azure CLI's refresh token is never redeemed here: refreshing is az's business.
extension MSALCredentialChain {
    /// How long a token found in az's cache must still be valid to be used (az itself refreshes earlier).
    static let azureCLIMinimumLifetime: TimeInterval = 300

    func azureCLIToken(scopes: [String]) async throws -> Token {
        do {
            if let cached = try azureCLICachedToken(scopes: scopes) { return cached }
        } catch {
            // az's cache is az's: when it cannot be read (too large, locked, not a file), az itself is asked.
            MSALLog().warning("The Azure CLI's token cache could not be read (\(error.localizedDescription)); running az.")
        }
        return try await azureCLIRunToken(scopes: scopes)
    }

    /// The directory of az's configuration and caches: `AZURE_CONFIG_DIR`, else `.azure` in `HOME`, as the chain's
    /// environment names them; nil when it names neither.
    var azureCLIDirectory: URL? {
        if let explicit = value("AZURE_CONFIG_DIR") {
            return URL(fileURLWithPath: HomePath.expand(explicit, home: value("HOME")))
        }
        return value("HOME").map { URL(fileURLWithPath: $0).appendingPathComponent(".azure") }
    }

    /// A token from az's cache file for the default subscription's account and tenant; nil when there is none
    /// valid long enough (or az keeps no such cache: an encrypted one, a managed identity sign-in).
    package func azureCLICachedToken(scopes: [String]) throws -> Token? {
        guard let directory = azureCLIDirectory else { return nil }
        let cacheFile = directory.appendingPathComponent("msal_token_cache.json")
        guard FileManager.default.fileExists(atPath: cacheFile.path),
              let profile = AzureCLIProfile.read(directory.appendingPathComponent("azureProfile.json")),
              let signedIn = profile.defaultAccount
        else { return nil }
        let storage = MSALFileTokenCacheStorage(fileURL: cacheFile)
        guard let stored = try storage.withExclusiveAccess({ try storage.read() }) else { return nil }
        let found: MSALCacheCodec.FoundAccessToken?
        switch signedIn.kind {
        case .user:
            found = try MSALCacheCodec.accessToken(in: stored.data, clientId: AzureCLIProfile.clientId, realm: signedIn.tenantId,
                                                   username: signedIn.name, scopes: scopes, now: Date(),
                                                   minimumLifetime: Self.azureCLIMinimumLifetime)
        case .servicePrincipal:
            found = try MSALCacheCodec.accessToken(in: stored.data, clientId: signedIn.name, realm: signedIn.tenantId,
                                                   username: nil, scopes: scopes, now: Date(),
                                                   minimumLifetime: Self.azureCLIMinimumLifetime)
        case .managedIdentity:
            found = nil
        }
        return found.map { Token(accessToken: $0.secret, expiresOn: $0.expiresOn, step: .azureCLI) }
    }

    /// Runs `az account get-access-token --scope ...` and reads its answer.
    package func azureCLIRunToken(scopes: [String]) async throws -> Token {
        guard let path = value("PATH"), let program = Self.executable(named: "az", path: path) else {
            throw MSALErrorInfo.invalidParameter("the Azure CLI (az) is not installed (not on PATH).")
        }
        let arguments = ["account", "get-access-token", "--output", "json", "--scope"] + scopes
        let outcome = try await ChildProcess.run(program, arguments, environment: environment, timeout: azureCLITimeout)
        if outcome.timedOut {
            throw MSALErrorInfo.invalidParameter(
                "the Azure CLI did not answer within \(Int(azureCLITimeout)) s (az account get-access-token).")
        }
        guard outcome.status == 0 else {
            let message = String(decoding: outcome.standardError.prefix(2000), as: UTF8.self)
            if message.contains("az login") {
                throw MSALErrorInfo.invalidParameter("the Azure CLI is not signed in, or its sign-in expired (run az login).")
            }
            let firstLine = message.split(separator: "\n").first.map(String.init) ?? "no message"
            throw MSALErrorInfo.invalidParameter(
                "az account get-access-token failed (exit \(outcome.status)): \(firstLine.prefix(300))")
        }
        guard let printed = AzureCLIAccessToken.parse(outcome.standardOutput) else {
            throw MSALErrorInfo.invalidParameter("az account get-access-token printed no access token.")
        }
        return Token(accessToken: printed.accessToken, expiresOn: printed.expiresOn, step: .azureCLI)
    }

    /// The first executable file named `name` in the directories of `path`.
    static func executable(named name: String, path: String) -> String? {
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

extension AzureCLIProfile {
    /// Reads the profile file (a regular file of at most ``maximumSize`` bytes, opened without blocking, so that a
    /// FIFO, a device or a huge file at that path costs nothing); nil when it is absent, too large or unreadable.
    static func read(_ file: URL) -> AzureCLIProfile? {
        guard let data = try? OutsideFile.read(file.path, limit: maximumSize) else { return nil }
        return parse(data)
    }
}
