import Foundation
import MSAL
import MSALTesting

/// The identity provider benchmarks sign in against: MSALTesting's scripted provider with many users (one per
/// `login_hint` `user<N>@bench.example`), unsigned id tokens and no published keys (so that building a cache of
/// thousands of accounts costs no RSA signature per token), and, with `wideTargets`, granted scopes wider than the
/// requested ones, as Entra returns them. It also plays the browser.
final class BenchIdentityProvider: MSALHTTPClient, MSALWebAuthenticator, Sendable {
    static let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"

    let scripted: MSALScriptedIdentityProvider
    private let browser: MSALScriptedWebAuthenticator

    init(wideTargets: Bool) {
        let scripted = MSALScriptedIdentityProvider(tenant: Self.tenant)
        scripted.usersByLoginHint = { hint in
            guard hint.hasPrefix("user"), let number = Int(hint.dropFirst(4).prefix { $0.isNumber }) else { return nil }
            return MSALScriptedIdentityProvider.User(oid: Self.oid(number), tenant: Self.tenant,
                                                     username: Self.username(number), name: "User \(number)")
        }
        if wideTargets {
            scripted.grantedScopes = { granted in
                granted + granted.map { $0.replacingOccurrences(of: "/read", with: "/write") }
                    + granted.map { $0.replacingOccurrences(of: "/read", with: "/admin") }
            }
        }
        scripted.signsIdTokens = false
        scripted.publishesKeys = false
        scripted.recordsRequests = false
        scripted.expiresIn = 86_400
        scripted.accessTokenLength = 70
        self.scripted = scripted
        self.browser = MSALScriptedWebAuthenticator(provider: scripted)
    }

    /// Every request received so far.
    var requestCount: Int { scripted.requestCount }

    static func username(_ user: Int) -> String { "user\(user)@bench.example" }
    static func oid(_ user: Int) -> String { String(format: "00000000-0000-0000-%04x-%012x", user % 0xffff, user) }
    func username(_ user: Int) -> String { Self.username(user) }
    func scopes(resource: Int) -> [String] { ["api://bench-resource-\(resource)/read"] }

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        try await scripted.send(request)
    }

    func prepare(_ request: MSALWebAuthenticationRequest) async throws -> any MSALWebAuthenticationSession {
        try await browser.prepare(request)
    }
}
