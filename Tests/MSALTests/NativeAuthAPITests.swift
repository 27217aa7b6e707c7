import Foundation
import MSAL
import MSALEmulator
import MSALEmulatorCore
import MSALTestSupport
import MSALTesting
import Testing
@testable import MSALCore

/// Native sign-in through the public API (MSAL for iOS/macOS's names, delegate and async forms) against the
/// emulator's External ID endpoints: the tokens land in the app's cache, silent tokens and sign-out follow.
@Suite("Native authentication: the public sign-in API")
struct NativeAuthAPITests {
    static let clientId = EmulatorConfiguration.nativeAuthClientId
    static let codeUser = EmulatorConfiguration.customerWithCode
    static let passwordUser = EmulatorConfiguration.customerWithPassword
    static let tenant = EmulatorConfiguration.externalTenantDomain

    static func startEmulator(_ change: (inout EmulatorConfiguration) -> Void = { _ in }) async throws -> IdentityEmulator {
        var configuration = EmulatorConfiguration.default
        change(&configuration)
        return try await IdentityEmulator.start(configuration)
    }

    static func makeApp(_ emulator: IdentityEmulator, challengeTypes: MSALNativeAuthChallengeTypes = [.OOB, .password],
                        capabilities: MSALNativeAuthCapabilities = [],
                        http: MSALRecordingHTTPClient = MSALRecordingHTTPClient(),
                        storage: MSALInMemoryTokenCacheStorage = MSALInMemoryTokenCacheStorage()) throws
        -> MSALNativeAuthPublicClientApplication {
        let authority = try MSALCIAMAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(tenant)")!)
        let config = MSALNativeAuthPublicClientApplicationConfig(clientId: clientId, authority: authority,
                                                                 challengeTypes: challengeTypes)
        config.capabilities = capabilities
        config.httpClient = http
        config.cacheConfig.storage = storage
        return try MSALNativeAuthPublicClientApplication(nativeAuthConfiguration: config)
    }

    /// The newest code the emulator mailed to `username`.
    static func lastCode(_ emulator: IdentityEmulator, for username: String) async throws -> String {
        var components = URLComponents(url: emulator.httpURL.appendingPathComponent("_emulator/native-auth/codes"),
                                       resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "username", value: username)]
        let (_, _, body) = try await NoRedirectFetcher.fetch(components.url!)
        let codes = (try JSONSerialization.jsonObject(with: body) as? [String: Any])?["codes"] as? [[String: Any]]
        return try #require(codes?.last?["code"] as? String)
    }

    @Test("Code sign-in (async): a wrong code keeps the state, then tokens in the cache, silent tokens, sign-out")
    func codeSignIn() async throws {
        let emulator = try await Self.startEmulator()
        defer { Task { await emulator.stop() } }
        let storage = MSALInMemoryTokenCacheStorage()
        let app = try Self.makeApp(emulator, storage: storage)
        let parameters = MSALNativeAuthSignInParameters(username: Self.codeUser)
        parameters.scopes = ["User.Read"]
        guard case .codeRequired(let sent) = try await app.signIn(parameters: parameters) else {
            Issue.record("expected a code to be sent"); return
        }
        #expect(sent.sentTo == "ol***@ex***.org" && sent.codeLength == 8 && sent.channelTargetType.isEmailType)
        do {
            _ = try await sent.newState.submitCode(code: "00000000")
            Issue.record("a wrong code was accepted")
        } catch {
            #expect(error.isInvalidCode && !error.isBrowserRequired)
        }
        let code = try await Self.lastCode(emulator, for: Self.codeUser)
        let result = try #require(try await sent.newState.submitCode(code: code).result)
        #expect(result.account.username == Self.codeUser)
        #expect(result.idToken != nil)
        #expect(try app.allAccounts().map(\.username) == [Self.codeUser])

        // The access token of the sign-in comes from the cache; MSAL's silent call sees the same account.
        let token = try await result.getAccessToken()
        #expect(!token.accessToken.isEmpty && token.refreshToken == nil)
        #expect(token.scopes.contains { $0.hasSuffix("User.Read") })
        let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        #expect(silent.accessToken == token.accessToken)
        let refreshed = MSALNativeAuthGetAccessTokenParameters()
        refreshed.forceRefresh = true
        refreshed.returnRefreshToken = true
        let forced = try await result.getAccessToken(parameters: refreshed)
        #expect(forced.accessToken != token.accessToken && forced.refreshToken != nil)

        let cached = try #require(app.getNativeAuthUserAccount())
        #expect(cached.account.identifier == result.account.identifier && cached.idToken?.split(separator: ".").count == 3)
        #expect(try await cached.getAccessToken().accessToken == forced.accessToken)
        cached.signOut()
        #expect(app.getNativeAuthUserAccount() == nil)
        #expect(try app.allAccounts().isEmpty)
    }

    @Test("A new code: the state after resend takes it, the old code no longer works")
    func resendCode() async throws {
        let emulator = try await Self.startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try Self.makeApp(emulator)
        guard case .codeRequired(let first) = try await app.signIn(parameters: MSALNativeAuthSignInParameters(username: Self.codeUser)) else {
            Issue.record("expected a code"); return
        }
        let oldCode = try await Self.lastCode(emulator, for: Self.codeUser)
        let second = try await first.newState.resendCode()
        let newCode = try await Self.lastCode(emulator, for: Self.codeUser)
        #expect(second.codeLength == 8)
        await #expect(throws: VerifyCodeError.self) { _ = try await second.newState.submitCode(code: oldCode == newCode ? "0" : oldCode) }
        let result = try #require(try await second.newState.submitCode(code: newCode).result)
        #expect(result.account.username == Self.codeUser)
    }

    @Test("Errors as MSAL for iOS/macOS reports them: unknown user, bad input, wrong password, browser required")
    func errors() async throws {
        let emulator = try await Self.startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let app = try Self.makeApp(emulator, http: http)
        func startError(_ parameters: MSALNativeAuthSignInParameters, on app: MSALNativeAuthPublicClientApplication) async -> SignInStartError? {
            do {
                _ = try await app.signIn(parameters: parameters)
                return nil
            } catch {
                return error
            }
        }
        let unknown = await startError(MSALNativeAuthSignInParameters(username: "nobody@example.org"), on: app)
        #expect(unknown?.isUserNotFound == true && unknown?.errorCodes == [50034])
        #expect(unknown?.errorUri?.hasSuffix("/error?code=50034") == true)

        let before = http.requests.count
        let empty = await startError(MSALNativeAuthSignInParameters(username: " "), on: app)
        #expect(empty?.isInvalidUsername == true)
        #expect(http.requests.count == before, "bad input must fail before any request")

        let wrong = MSALNativeAuthSignInParameters(username: Self.passwordUser)
        wrong.password = "not-the-password"
        let credentials = await startError(wrong, on: app)
        #expect(credentials?.isInvalidCredentials == true && credentials?.errorCodes.first == 50126)
        let described: String = credentials?.errorDescription ?? nil ?? ""
        #expect(!described.contains("not-the-password"))

        // An app that declared codes only meets a user who signs in with a password: the browser is required.
        let codeOnly = try Self.makeApp(emulator, challengeTypes: [.OOB])
        let browser = await startError(MSALNativeAuthSignInParameters(username: Self.passwordUser), on: codeOnly)
        #expect(browser?.isBrowserRequired == true)
    }

    @Test("Configuration: the tenant subdomain makes the CIAM authority; other authorities are refused")
    func configuration() throws {
        let config = try MSALNativeAuthPublicClientApplicationConfig(clientId: Self.clientId, tenantSubdomain: "contoso",
                                                                     challengeTypes: [.OOB])
        #expect(config.authority.url.absoluteString == "https://contoso.ciamlogin.com/contoso.onmicrosoft.com")
        #expect(config.challengeTypes == [.OOB] && config.capabilities.isEmpty)
        for bad in ["", "con toso", "-contoso", "contoso.com", String(repeating: "a", count: 64)] {
            #expect(throws: MSALErrorInfo.self) {
                _ = try MSALNativeAuthPublicClientApplicationConfig(clientId: Self.clientId, tenantSubdomain: bad, challengeTypes: [.OOB])
            }
        }
        let workforce = MSALPublicClientApplicationConfig(clientId: Self.clientId)
        #expect(throws: MSALErrorInfo.self) {
            _ = try MSALNativeAuthPublicClientApplication(configuration: workforce, challengeTypes: [.OOB])
        }
        let app = try MSALNativeAuthPublicClientApplication(clientId: Self.clientId, tenantSubdomain: "contoso",
                                                            challengeTypes: [.OOB, .password])
        #expect(app.configuration.authority.url.host == "contoso.ciamlogin.com")
    }
}
