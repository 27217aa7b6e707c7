import ArgumentParser
import Foundation
import MSAL

/// `msal status`: who is signed in, which account is active, what the cache holds and how it is protected.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the signed-in accounts, the active one, cached tokens, and where and how the cache is kept.",
        discussion: """
        Lists each signed-in account (the active one marked), its tenants, its cached access tokens (scopes, tenant, \
        expiry) and whether it has a refresh token; the configuration profile, client id and authority in use; the \
        cache location and its protection (Secret Service, kernel keyring or key file encryption, or plaintext); the \
        device's identity broker (present, version, the accounts it holds, whether it is used). Never prints a token. \
        Makes no network request.

        Examples:
          msal status
          msal status --json
        """
    )

    @OptionGroup var options: CommonOptions

    func run() async throws {
        try await CLI.run(options) {
            let factory = ApplicationFactory(options: options)
            let application = try factory.makeApplication()
            let accounts = try application.allAccounts()
            let active = factory.activeAccountId.flatMap { id in accounts.first { $0.identifier == id } }
                ?? (accounts.count == 1 ? accounts.first : nil)
            let inventory = CacheInventory.read(try? factory.cache.storage.read()?.data, clientId: options.signInClientId)
            let protection = factory.cache.protectionSummary
            let now = Date()
            let broker = await BrokerStatus.probe(clientId: options.signInClientId, inUse: options.settings.usesBroker)
            var described: [[String: Any]] = []
            for account in accounts {
                var object = Describe.account(account)
                let holdings = inventory.accounts[account.identifier ?? ""] ?? CacheInventory.Holdings()
                object["active"] = account.identifier == active?.identifier
                object["has_refresh_token"] = holdings.hasRefreshToken
                object["access_tokens"] = holdings.accessTokens.map { token -> [String: Any] in
                    var item: [String: Any] = ["scopes": token.scopes, "tenant_id": token.tenantId]
                    if let keyId = token.keyId { item["token_type"] = "pop"; item["key_id"] = keyId }
                    if let expiresOn = token.expiresOn {
                        item["expires_on"] = ExternalNumber.clampedInteger(expiresOn.timeIntervalSince1970)
                        item["expires_in"] = max(0, ExternalNumber.clampedInteger(expiresOn.timeIntervalSince(now)))
                    }
                    return item
                }
                described.append(object)
            }
            if options.wantsJSON {
                var object: [String: Any] = [
                    "client_id": options.signInClientId, "authority": options.resolvedAuthority,
                    "accounts": described,
                    "cache": ["location": protection.location, "protection": protection.tier,
                              "encrypted": protection.encrypted, "steps": protection.steps,
                              "lifetime": protection.lifetime] as [String: Any],
                    "config_file": ProcessConfiguration.file.path,
                ]
                object["profile"] = options.selectedProfile?.name ?? NSNull()
                object["broker"] = broker.json
                object["active_account"] = active.map(Describe.account) ?? NSNull()
                if let caFile = caFileState { object["ca_file"] = ["path": caFile.path, "source": caFile.source.name, "readable": caFile.readable] }
                if let gone = factory.recordedSignInGone(from: accounts) {
                    object["recorded_sign_in_missing"] = gone.entry.username ?? gone.homeAccountId
                }
                CLI.out(CLI.jsonLine(object))
                return
            }
            printText(accounts: described, protection: protection, now: now)
            if let gone = factory.recordedSignInGone(from: accounts) {
                CLI.out("The active sign-in (\(gone.entry.username ?? gone.homeAccountId)) is no longer in this cache: "
                        + "sign in again with `msal login`.")
            }
            if let caFile = caFileState, !caFile.readable {
                CLI.out("CA file: \(caFile.path) (from \(caFile.source.name)) cannot be read: requests fail until you sign in "
                        + "with a CA file that can (msal login --authority <authority> --ca-file <CA file>).")
            }
            CLI.out(broker.line)
        }
    }

    /// The CA file in use, where it was named, and whether it can be read as PEM certificates.
    private var caFileState: (path: String, source: CAFileSource, readable: Bool)? {
        guard let path = options.resolvedCAFile, let source = options.caFileSource else { return nil }
        let roots = ToolDefaults.trustRootsPEM(at: path, home: ProcessConfiguration.environment["HOME"])
        return (roots.path, source, roots.pem != nil)
    }

    private func printText(accounts: [[String: Any]], protection: CacheChoice.ProtectionSummary, now: Date) {
        let profile = options.selectedProfile.map { " (profile \($0.name))" } ?? ""
        CLI.out("Client \(options.signInClientId) on \(options.resolvedAuthority)\(profile)")
        if accounts.isEmpty { CLI.out("  No account is signed in. Sign in with `msal login`.") }
        let host = URL(string: options.resolvedAuthority)?.host?.lowercased()
        for account in accounts {
            let marker = account["active"] as? Bool == true ? "* " : "  "
            let tenants = (account["tenant_ids"] as? [String] ?? []).joined(separator: ", ")
            // An account of another cloud (or another emulator) in the same cache says where it is.
            let environment = account["environment"] as? String ?? ""
            let elsewhere = !environment.isEmpty && environment.lowercased() != host ? "  (on \(environment))" : ""
            CLI.out("\(marker)\(account["username"] as? String ?? "")  \(account["home_account_id"] as? String ?? "")"
                    + (account["active"] as? Bool == true ? "  (active)" : "") + elsewhere)
            if !tenants.isEmpty { CLI.out("    tenants: \(tenants)") }
            for token in account["access_tokens"] as? [[String: Any]] ?? [] {
                let seconds = token["expires_in"] as? Int ?? 0
                let expiry = seconds > 0 ? "expires in \(seconds / 60) min" : "expired"
                let bound = (token["key_id"] as? String).map { ", bound to key \($0)" } ?? ""
                CLI.out("    access token: \((token["scopes"] as? [String] ?? []).joined(separator: " ")) "
                        + "(tenant \(token["tenant_id"] as? String ?? "")\(bound)), \(expiry)")
            }
            CLI.out("    refresh token: \(account["has_refresh_token"] as? Bool == true ? "yes" : "no")")
        }
        let encrypted = protection.encrypted ? "encrypted" : "not encrypted"
        CLI.out("Cache: \(protection.location) — \(protection.tier), \(encrypted), \(protection.lifetime)")
        if accounts.count > 1 { CLI.out("Switch the active account with `msal switch ACCOUNT`.") }
    }
}
