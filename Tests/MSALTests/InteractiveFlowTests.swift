import MSALTesting
import Foundation
import MSALTestSupport
import Testing
import MSAL
@testable import MSALCore

@Suite("Interactive acquisition and accounts")
struct InteractiveFlowTests {
    let provider = MSALScriptedIdentityProvider(host: "login-\(UUID().uuidString.prefix(8).lowercased()).example.com")

    @Test func authorizeURLCarriesPKCEStateNonceAndHints() async throws {
        let app = try makeFakeApp(provider) { $0.clientApplicationCapabilities = ["cp1"] }
        let recorder = RecordingAuthenticator(provider: provider)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = recorder
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        parameters.promptType = .selectAccount
        parameters.loginHint = "alice@contoso.example"
        parameters.domainHint = "contoso.example"
        parameters.extraScopesToConsent = ["Calendars.Read"]
        parameters.extraQueryParameters = ["slice": "testslice"]
        let result = try await app.acquireToken(with: parameters)
        let query = FormEncoding.decode(URLComponents(url: try #require(recorder.lastURL.get()), resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        #expect(query["response_type"] == "code")
        #expect(query["code_challenge_method"] == "S256")
        #expect(query["code_challenge"]?.count == 43)
        #expect((query["state"]?.count ?? 0) >= 32)
        #expect((query["nonce"]?.count ?? 0) >= 32)
        #expect(query["client_info"] == "1")
        #expect(query["prompt"] == "select_account")
        #expect(query["login_hint"] == "alice@contoso.example")
        #expect(query["domain_hint"] == "contoso.example")
        #expect(query["slice"] == "testslice")
        #expect(query["claims"]?.contains("xms_cc") == true)
        #expect(Set(query["scope"]?.split(separator: " ").map(String.init) ?? []) ==
                ["User.Read", "Calendars.Read", "openid", "profile", "offline_access"])
        let token = try #require(provider.tokenRequestBodies().last)
        #expect(token["grant_type"] == "authorization_code")
        #expect(token["code_verifier"]?.count == 43)
        #expect(token["redirect_uri"] == "http://localhost")
        #expect(result.account.username == "alice@contoso.example")
        #expect(result.account.homeAccountId?.objectId == provider.user.oid)
        #expect(result.account.homeAccountId?.tenantId == provider.user.tenant)
        #expect(result.authority.url.absoluteString.hasSuffix(provider.tenant))
        #expect(!result.description.contains(result.accessToken))
    }

    @Test func stateMismatchAndRedirectErrorsAreTyped() async throws {
        let app = try makeFakeApp(provider)
        func run(_ override: [String: String]) async -> (any Error)? {
            let webview = MSALWebviewParameters()
            webview.webAuthenticator = MSALScriptedWebAuthenticator(provider: provider, redirectOverride: override)
            do {
                _ = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
                return nil
            } catch { return error }
        }
        let wrongState = await run(["state": "forged"]) as? MSALErrorInfo
        #expect(wrongState?.internalCode == .internalErrorInvalidState)
        let cancelled = await run(["error": "access_denied", "error_subcode": "cancel", "code": ""]) as? MSALErrorInfo
        #expect(cancelled?.code == .userCanceled)
        let denied = await run(["error": "invalid_request", "error_description": "AADSTS90014: missing field", "code": ""]) as? MSALErrorInfo
        #expect(denied?.internalCode == .internalErrorInvalidRequest)
        #expect(denied?.oauthError == "invalid_request")
        #expect(denied?.stsErrorCodes == ["90014"])
    }

    @Test func secondInteractiveCallWhileOneRunsFails() async throws {
        let app = try makeFakeApp(provider)
        let held = HeldAuthenticator(provider: provider)
        defer { held.gate.openGate() }
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = held
        let first = Task { try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)) }
        // The first sign-in is showing its page (held there) while the second one starts.
        try await held.gate.waitForArrivals(1)
        await #expect {
            try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        } throws: { ($0 as? MSALErrorInfo)?.internalCode == .internalErrorInteractiveSessionAlreadyRunning }
        held.gate.openGate()
        _ = try await value(of: first)
    }

    @Test func accountsCurrentAccountRemoveAndSignout() async throws {
        let app = try makeFakeApp(provider)
        #expect(try app.allAccounts().isEmpty)
        let (none, _) = try await app.currentAccount(with: nil)
        #expect(none == nil)
        let result = try await app.acquireToken(with: interactiveParameters(provider))
        let accounts = try app.allAccounts()
        #expect(accounts.count == 1)
        let account = try #require(accounts.first)
        #expect(account.identifier == "\(provider.user.oid).\(provider.user.tenant)")
        #expect(account.tenantProfiles?.first?.isHomeTenantProfile == true)
        #expect(account.accountClaims?["name"] as? String == "Alice")
        #expect(try app.account(forUsername: "ALICE@contoso.example").identifier == account.identifier)
        #expect(try app.account(forIdentifier: try #require(account.identifier)) == account)
        let (current, _) = try await app.currentAccount(with: nil)
        #expect(current == result.account)
        let done = try await app.signout(with: account, signoutParameters: MSALSignoutParameters(webviewParameters: MSALWebviewParameters()))
        #expect(done)
        #expect(try app.allAccounts().isEmpty)
        await #expect {
            try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        } throws: { ($0 as NSError).code == MSALError.interactionRequired.rawValue }
        #expect(throws: MSALErrorInfo.self) { try app.account(forUsername: "alice@contoso.example") }
    }

    @Test func completionBlocksAreCalledOnTheGivenQueue() async throws {
        let app = try makeFakeApp(provider)
        let queue = DispatchQueue(label: "completion")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let parameters = interactiveParameters(provider)
        parameters.completionBlockQueue = queue
        let onQueue: Bool = await withCheckedContinuation { continuation in
            app.acquireToken(with: parameters) { result, error in
                continuation.resume(returning: DispatchQueue.getSpecific(key: key) == 7 && result != nil && error == nil)
            }
        }
        #expect(onQueue)
    }

    @Test func deviceInformationIsLocal() async throws {
        let app = try makeFakeApp(provider)
        let info = try await app.deviceInformation(with: nil)
        #expect(info.deviceMode == .default)
        #expect(!info.hasAADSSOExtension)
    }
}

/// Remembers the last authorization URL it was given.
final class RecordingAuthenticator: MSALDirectWebAuthenticator {
    let provider: MSALScriptedIdentityProvider
    let lastURL = LockedBox<URL?>(nil)
    init(provider: MSALScriptedIdentityProvider) { self.provider = provider }
    func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        lastURL.set(url)
        return MSALWebAuthenticationResponse(redirectUri: request.redirectUri, parameters: provider.authorize(url))
    }
}

/// Shows its page until the test opens its gate, then answers.
struct HeldAuthenticator: MSALDirectWebAuthenticator {
    let provider: MSALScriptedIdentityProvider
    let gate = Gate()
    func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        try await gate.pass()
        return try await MSALScriptedWebAuthenticator(provider: provider).present(url, for: request)
    }
}

/// The user agent prepares first and reports its redirect URI; MSAL builds the URL for it, then asks for it to be
/// presented (AppAuth's order: no callback from the user agent into MSAL).
@Suite("Interactive sign-in order")
struct InteractiveOrderTests {
    final class PreparingAuthenticator: MSALWebAuthenticator, @unchecked Sendable {
        let provider: MSALScriptedIdentityProvider
        let events = LockedBox<[String]>([])
        init(provider: MSALScriptedIdentityProvider) { self.provider = provider }

        struct Session: MSALWebAuthenticationSession {
            let owner: PreparingAuthenticator
            let redirectUri = "http://localhost:54321/prepared"
            func present(_ authorizationURL: URL) async throws -> MSALWebAuthenticationResponse {
                let query = FormEncoding.decode(URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
                owner.events.withLock { $0.append("present redirect_uri=\(query["redirect_uri"] ?? "")") }
                return MSALWebAuthenticationResponse(redirectUri: redirectUri, parameters: owner.provider.authorize(authorizationURL))
            }
        }

        func prepare(_ request: MSALWebAuthenticationRequest) async throws -> any MSALWebAuthenticationSession {
            events.withLock { $0.append("prepare \(request.redirectUri)") }
            return Session(owner: self)
        }
    }

    @Test func theURLNamesThePreparedRedirectURIAndTheCodeIsRedeemedWithIt() async throws {
        let provider = MSALScriptedIdentityProvider()
        let app = try makeFakeApp(provider)
        let authenticator = PreparingAuthenticator(provider: provider)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = authenticator
        _ = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        #expect(authenticator.events.get() == ["prepare http://localhost", "present redirect_uri=http://localhost:54321/prepared"])
        let redeemed = try #require(provider.tokenRequestBodies().last)
        #expect(redeemed["redirect_uri"] == "http://localhost:54321/prepared")
    }
}
