import Foundation
import MSAL

/// The application and cache a benchmark runs on.
struct BenchSetup {
    struct Target { var scopes: [String]; var account: MSALAccount }

    var app: MSALPublicClientApplication
    var provider: BenchIdentityProvider
    var targets: [Target]
    var accountCount: Int
    var tokensPerAccount: Int
    var cacheData: Data

    static let clientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    static let reserved: Set<String> = ["openid", "profile", "offline_access"]

    /// Signs in `accounts` users and gets `tokensPerAccount` access tokens for each, all through the public API.
    static func build(accounts: Int, tokensPerAccount: Int, wideTargets: Bool) async throws -> BenchSetup {
        let provider = BenchIdentityProvider(wideTargets: wideTargets)
        let storage = MSALInMemoryTokenCacheStorage()
        let config = MSALPublicClientApplicationConfig(
            clientId: clientId, redirectUri: "http://localhost",
            authority: try MSALAADAuthority(url: URL(string: "https://login.microsoftonline.com/organizations")!))
        config.httpClient = provider
        config.cacheConfig.storage = storage
        let app = try MSALPublicClientApplication(configuration: config)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = provider
        var targets: [Target] = []
        for user in 0..<accounts {
            let first = MSALInteractiveTokenParameters(scopes: provider.scopes(resource: 0), webviewParameters: webview)
            first.loginHint = provider.username(user)
            let result = try await app.acquireToken(with: first)
            targets.append(Target(scopes: provider.scopes(resource: 0), account: result.account))
            for resource in 1..<max(1, tokensPerAccount) {
                let scopes = provider.scopes(resource: resource)
                _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: scopes, account: result.account))
                targets.append(Target(scopes: scopes, account: result.account))
            }
        }
        return BenchSetup(app: app, provider: provider, targets: targets, accountCount: accounts,
                          tokensPerAccount: tokensPerAccount, cacheData: storage.data ?? Data())
    }

    /// Loads a unified cache file another SDK (or this one) wrote, and targets every access token that is valid
    /// for at least ten more minutes.
    static func load(file: URL) async throws -> BenchSetup {
        let data = try Data(contentsOf: file)
        guard let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let accessTokens = document["AccessToken"] as? [String: [String: Any]] else {
            throw BenchError("\(file.path) is not a unified token cache with an AccessToken section")
        }
        let now = Date().timeIntervalSince1970
        let valid = accessTokens.values.filter { entry in
            (entry["expires_on"] as? String).flatMap(Double.init).map { $0 > now + 600 } ?? false
        }
        guard let sample = valid.first, let clientId = sample["client_id"] as? String,
              let environment = sample["environment"] as? String, let realm = sample["realm"] as? String else {
            throw BenchError("\(file.path) holds no access token valid for ten more minutes")
        }
        let provider = BenchIdentityProvider(wideTargets: false)
        let config = MSALPublicClientApplicationConfig(
            clientId: clientId, redirectUri: "http://localhost",
            authority: try MSALAADAuthority(url: URL(string: "https://\(environment)/\(realm)")!))
        config.httpClient = provider
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage(data: data)
        let app = try MSALPublicClientApplication(configuration: config)
        var accountsById: [String: MSALAccount] = [:]
        for account in try app.allAccounts() { if let id = account.identifier { accountsById[id] = account } }
        var targets: [Target] = []
        for entry in valid where entry["client_id"] as? String == clientId && entry["realm"] as? String == realm {
            guard let home = entry["home_account_id"] as? String, let account = accountsById[home],
                  let target = entry["target"] as? String else { continue }
            let scopes = target.split(separator: " ").map(String.init).filter { !reserved.contains($0.lowercased()) }
            if !scopes.isEmpty { targets.append(Target(scopes: scopes, account: account)) }
        }
        guard !targets.isEmpty else { throw BenchError("no usable access tokens in \(file.path)") }
        return BenchSetup(app: app, provider: provider, targets: targets, accountCount: accountsById.count,
                          tokensPerAccount: targets.count / max(1, accountsById.count), cacheData: data)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
