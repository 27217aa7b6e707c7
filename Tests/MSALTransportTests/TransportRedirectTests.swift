import Foundation
import MSAL
import Testing
import MSALTestSupport

/// Identity-provider requests never follow redirects: a 3xx from the token, device-code, discovery or metadata
/// endpoint becomes a typed error, and the origin the redirect names receives nothing (not the code, the PKCE
/// verifier, the device code or a refresh token).
@Suite("Identity-provider redirects are refused")
struct TransportRedirectTests {
    /// Records whatever reaches it: the other origin a hostile redirect points to.
    static func startThief() async throws -> TestHTTPServer {
        try await TestHTTPServer.start { _ in .json(["access_token": "stolen"]) }
    }

    static func expectRedirectRefused(_ error: any Error, status: Int) {
        guard let info = error as? MSALErrorInfo else {
            Issue.record("Expected MSALErrorInfo, got \(type(of: error)): \(error)")
            return
        }
        #expect(info.code == .internal)
        #expect(info.internalCode == .internalErrorUnexpectedHttpResponse)
        #expect(info.httpStatusCode == status)
        #expect(info.errorDescription.contains("redirect"))
    }

    @Test("Code redemption answered with a redirect", arguments: TransportKind.allCases, [302, 307, 308])
    func codeRedemption(transport: TransportKind, status: Int) async throws {
        let thief = try await Self.startThief()
        let idp = try await HostileIdentityProvider.start { request in
            request.path.hasSuffix("/oauth2/v2.0/token") ? .redirect(status, to: "\(thief.baseURL)/steal") : nil
        }
        defer { Task { await idp.stop(); await thief.stop() } }
        let app = try HostileIdentityProvider.application(idp, http: transport.client)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = CodeIssuingAuthenticator()
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)

        do {
            _ = try await app.acquireToken(with: parameters)
            Issue.record("The code was redeemed through a redirect")
        } catch {
            Self.expectRedirectRefused(error, status: status)
        }
        let tokenRequests = idp.requests.filter { $0.path.hasSuffix("/oauth2/v2.0/token") }
        #expect(tokenRequests.count == 1, "a redirect is refused, not retried")
        #expect(tokenRequests.first.map { String(decoding: $0.body, as: UTF8.self).contains("code_verifier=") } == true)
        #expect(thief.requests.isEmpty, "the redirect target received \(thief.requests.count) request(s)")
    }

    @Test("Device authorization answered with a redirect", arguments: TransportKind.allCases)
    func deviceCode(transport: TransportKind) async throws {
        let thief = try await Self.startThief()
        let idp = try await HostileIdentityProvider.start { request in
            request.path.hasSuffix("/oauth2/v2.0/devicecode") ? .redirect(307, to: "\(thief.baseURL)/steal") : nil
        }
        defer { Task { await idp.stop(); await thief.stop() } }
        let app = try HostileIdentityProvider.application(idp, http: transport.client)
        do {
            _ = try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { _ in }
            Issue.record("The device code flow succeeded through a redirect")
        } catch {
            Self.expectRedirectRefused(error, status: 307)
        }
        #expect(idp.requests.filter { $0.path.hasSuffix("/devicecode") }.count == 1)
        #expect(thief.requests.isEmpty)
    }

    @Test("Device code polling answered with a redirect stops at once", arguments: TransportKind.allCases)
    func deviceCodePolling(transport: TransportKind) async throws {
        let thief = try await Self.startThief()
        let idp = try await HostileIdentityProvider.start { request in
            if request.path.hasSuffix("/oauth2/v2.0/devicecode") {
                return .json(["device_code": "secret-device-code", "user_code": "ABCD-EFGH",
                              "verification_uri": "https://127.0.0.1/devicelogin", "expires_in": 900, "interval": 1])
            }
            return request.path.hasSuffix("/oauth2/v2.0/token") ? .redirect(308, to: "\(thief.baseURL)/steal") : nil
        }
        defer { Task { await idp.stop(); await thief.stop() } }
        let app = try HostileIdentityProvider.application(idp, http: transport.client)
        do {
            _ = try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { _ in }
            Issue.record("The device code flow succeeded through a redirect")
        } catch {
            Self.expectRedirectRefused(error, status: 308)
        }
        // A redirect is not a transport failure to back off from and poll again: the flow ended at the first poll.
        #expect(idp.requests.filter { $0.path.hasSuffix("/oauth2/v2.0/token") }.count == 1)
        #expect(thief.requests.isEmpty)
    }

    @Test("OpenID metadata answered with a redirect", arguments: TransportKind.allCases)
    func metadata(transport: TransportKind) async throws {
        let thief = try await Self.startThief()
        let idp = try await HostileIdentityProvider.start { request in
            request.path.hasSuffix("/.well-known/openid-configuration") ? .redirect(302, to: "\(thief.baseURL)/meta") : nil
        }
        defer { Task { await idp.stop(); await thief.stop() } }
        let app = try HostileIdentityProvider.application(idp, http: transport.client)
        do {
            _ = try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { _ in }
            Issue.record("The flow succeeded with redirected metadata")
        } catch {
            Self.expectRedirectRefused(error, status: 302)
        }
        #expect(thief.requests.isEmpty)
    }
}
