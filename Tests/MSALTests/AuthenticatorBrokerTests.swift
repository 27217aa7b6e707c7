import Foundation
import MSALSupport
import MSALTestSupport
import Testing
import MSAL
import MSALTesting
@testable import MSALCore
import MSALEmulator
import MSALEmulatorCore

/// Microsoft Authenticator, app to app, through the seeds' `AppDelegate` path: the library opens the broker's request
/// URL, the emulator answers as Authenticator would, and the app hands the answer URL to
/// `MSALPublicClientApplication.handleMSALResponse(_:sourceApplication:)`, which completes the pending `acquireToken`.
@Suite("Microsoft Authenticator (app-to-app broker) against the emulator", .serialized)
struct AuthenticatorBrokerTests {
    static let redirectUri = "msauth.com.example.msaldemo://auth"

    /// The device: whether Authenticator is installed, and what it answers (the emulator's answer, possibly altered).
    struct Device: MSALBrokerAppOpener {
        let emulator: IdentityEmulator
        var installed = true
        var answers = true
        var alter: @Sendable (URL) -> URL = { $0 }
        let handled = LockedBox<[Bool]>([])
        let opened = LockedBox<[URL]>([])

        func canOpenBroker(scheme: String) async -> Bool { installed }
        func canOpenBrokerImmediately(scheme: String) -> Bool { installed }

        func open(_ url: URL) async -> Bool {
            guard installed else { return false }
            opened.withLock { $0.append(url) }
            guard answers else { return true }
            let (emulator, alter, handled) = (emulator, alter, handled)
            Task {
                guard let answer = await emulator.authenticatorAnswer(to: url) else { return }
                // What the seeds' AppDelegate does with the URL the system hands it.
                let sourceApplication: String? = "com.microsoft.azureauthenticator"
                let result = MSALPublicClientApplication.handleMSALResponse(alter(answer), sourceApplication: sourceApplication)
                handled.withLock { $0.append(result) }
            }
            return true
        }
    }

    static func emulator(policy: EmulatedConditionalAccess? = nil) async throws -> IdentityEmulator {
        try await BrokerEmulatorFixture.start(policy: policy)
    }

    static func app(_ emulator: IdentityEmulator, device: Device?) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(
            clientId: emulator.clientId, redirectUri: redirectUri,
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
        config.httpClient = MSALDefaultHTTPClient.shared
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        if let device { config.brokerOptions = MSALBrokerOptions(brokerApp: MSALBrokerApp(opener: device, keyStore: MSALInMemoryBrokerKeyStore())) }
        return try MSALPublicClientApplication(configuration: config)
    }

    static func interactive() -> MSALInteractiveTokenParameters {
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        return MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
    }

    static func deviceId(_ jwt: String) -> String? {
        let part = jwt.split(separator: ".").dropFirst().first.map(String.init) ?? ""
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let object = (try? JSONSerialization.jsonObject(with: Data(base64Encoded: base64) ?? Data())) as? [String: Any]
        return object?["deviceid"] as? String
    }

    @Test func theAppDelegateHandsTheAnswerAndTheCompliantDeviceTenantIsPassed() async throws {
        let emulator = try await Self.emulator(policy: .compliantDevice)
        let device = Device(emulator: emulator)
        let app = try Self.app(emulator, device: device)
        let result = try await app.acquireToken(with: Self.interactive())
        #expect(result.metadata.tokenSource == .broker)
        #expect(Self.deviceId(result.accessToken) != nil)
        #expect(device.handled.get() == [true])
        // The broker's refresh token is bound to the device: refreshing it passes the tenant's policy too.
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        parameters.forceRefresh = true
        let refreshed = try await app.acquireTokenSilent(with: parameters)
        #expect(refreshed.metadata.tokenSource == .identityProvider)
        #expect(Self.deviceId(refreshed.accessToken) == Self.deviceId(result.accessToken))
        // The web view alone cannot pass the policy.
        await #expect(throws: MSALErrorInfo.self) { try await Self.app(emulator, device: nil).acquireToken(with: Self.interactive()) }
        await emulator.stop()
    }

    /// The notifications around the switch to Authenticator, `isCompatibleAADBrokerAvailable`, and the request's
    /// further parameters (the QR code + PIN sign-in, bound refresh tokens).
    @Test func notificationsAvailabilityAndRequestParameters() async throws {
        let emulator = try await Self.emulator()
        let device = Device(emulator: emulator)
        let app = try Self.app(emulator, device: device)
        #expect(app.isCompatibleAADBrokerAvailable)
        var absent = device
        absent.installed = false
        #expect(!(try Self.app(emulator, device: absent).isCompatibleAADBrokerAvailable))
        #expect(!(try Self.app(emulator, device: nil).isCompatibleAADBrokerAvailable))

        let posted = LockedBox<[String]>([])
        let observers = [MSALWebAuthWillSwitchToBrokerApp, MSALWebAuthDidReceiveResponseFromBroker].map { name in
            NotificationCenter.default.addObserver(forName: NSNotification.Name(name), object: nil, queue: nil) { note in
                posted.withLock { $0.append(note.name.rawValue) }
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        let parameters = Self.interactive()
        parameters.preferredAuthMethod = .QRPIN
        #expect(try await app.acquireToken(with: parameters).metadata.tokenSource == .broker)
        #expect(posted.get() == [MSALWebAuthWillSwitchToBrokerApp, MSALWebAuthDidReceiveResponseFromBroker])
        let request = try #require(device.opened.get().last)
        let items = Dictionary(URLComponents(url: request, resolvingAgainstBaseURL: false)?.queryItems?.map { ($0.name, $0.value ?? "") } ?? [],
                               uniquingKeysWith: { first, _ in first })
        #expect((FormCoding.decode(items["extra_query_param"] ?? "", duplicates: .lastWins, malformed: .keepAsSent) ?? [:])["pc"] == "18")
        #expect(items["bound_rt_redeem"] == nil)
        await emulator.stop()

        var bound = AuthenticatorBrokerRequest(
            authority: "https://login.microsoftonline.com/common", clientId: "c", redirectUri: Self.redirectUri,
            correlationId: UUID(), scopes: ["User.Read"], brokerKey: Data(count: 32))
        bound.boundRefreshTokenRedeem = true
        #expect(bound.pairs.contains { $0 == ("bound_rt_redeem", "1") })
    }

    /// With `shouldRequestBoundAppRefreshTokens`, Authenticator answers a refresh token bound to the device, which
    /// only a redemption signed by the device could use: it is not stored, so a later silent request goes back to
    /// the broker instead of redeeming a token the server would refuse.
    @Test func aBoundAppRefreshTokenIsNotStored() async throws {
        let emulator = try await Self.emulator()
        let device = Device(emulator: emulator)
        MSALGlobalConfig.shouldRequestBoundAppRefreshTokens = true
        let app: MSALPublicClientApplication
        do {
            defer { MSALGlobalConfig.shouldRequestBoundAppRefreshTokens = false }
            app = try Self.app(emulator, device: device)
        }
        let result = try await app.acquireToken(with: Self.interactive())
        #expect(result.metadata.tokenSource == .broker)
        let request = try #require(device.opened.get().last)
        #expect(request.absoluteString.contains("bound_rt_redeem=1"))
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        #expect(try await app.acquireTokenSilent(with: parameters).metadata.tokenSource == .cache)
        parameters.forceRefresh = true
        await #expect { try await app.acquireTokenSilent(with: parameters) } throws: { ($0 as? MSALErrorInfo)?.code == .interactionRequired }
        await emulator.stop()
    }

    /// An app whose redirect URI is an `https` universal link opens Authenticator by its universal link, and the
    /// answer comes back to that redirect URI (through the app delegate's user activity, handed to
    /// `handleMSALResponse` the same way).
    @Test func aUniversalLinkRedirectURIOpensAuthenticatorByUniversalLink() async throws {
        let redirect = "https://app.contoso.example/msal/auth"
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let index = try #require(configuration.applications.firstIndex { $0.clientId == configuration.defaults.clientId })
        configuration.applications[index].redirectURIs.append(redirect)
        let emulator = try await IdentityEmulator.start(configuration)
        let device = Device(emulator: emulator)
        let config = MSALPublicClientApplicationConfig(
            clientId: emulator.clientId, redirectUri: redirect,
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
        config.httpClient = MSALDefaultHTTPClient.shared
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        config.brokerOptions = MSALBrokerOptions(brokerApp: MSALBrokerApp(opener: device, keyStore: MSALInMemoryBrokerKeyStore()))
        let app = try MSALPublicClientApplication(configuration: config)
        let result = try await app.acquireToken(with: Self.interactive())
        #expect(result.metadata.tokenSource == .broker)
        let request = try #require(device.opened.get().last)
        #expect(request.absoluteString.hasPrefix("https://login.microsoftonline.com/applebroker/msauthv2?"))
        #expect(device.handled.get() == [true])
        await emulator.stop()
    }

    /// A key store whose contents a test sets: what a relaunched app finds in the keychain.
    final class KeptStore: MSALBrokerKeyStore, @unchecked Sendable {
        let key: Data
        let pending = LockedBox<Data?>(nil)
        init(key: Data) { self.key = key }
        func brokerKey() throws -> Data { key }
        func applicationToken(clientId: String) throws -> String? { nil }
        func setApplicationToken(_ token: String, clientId: String) throws {}
        func setPendingRequest(_ state: Data?) throws { pending.set(state) }
        func pendingRequest() throws -> Data? { pending.get() }
    }

    /// Authenticator answers after the app was relaunched (the request that waited is gone): the answer is still
    /// checked with the kept broker key and request, and its tokens go to the cache, as MSAL for iOS/macOS does.
    @Test func anAnswerAfterARelaunchReachesTheCache() async throws {
        let emulator = try await Self.emulator()
        var device = Device(emulator: emulator)
        device.answers = false
        let key = AuthenticatorBrokerRequest.makeBrokerKey()
        let before = KeptStore(key: key)
        func app(_ store: KeptStore) throws -> MSALPublicClientApplication {
            let config = MSALPublicClientApplicationConfig(
                clientId: emulator.clientId, redirectUri: Self.redirectUri,
                authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
            config.httpClient = MSALDefaultHTTPClient.shared
            config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
            config.brokerOptions = MSALBrokerOptions(brokerApp: MSALBrokerApp(opener: device, keyStore: store))
            return try MSALPublicClientApplication(configuration: config)
        }
        let first = try app(before)
        let task = Task { try await first.acquireToken(with: Self.interactive()) }
        defer { task.cancel() }
        let opened = device.opened
        try await eventually(within: 10, "Authenticator to have the request") { !opened.get().isEmpty }
        let kept = try #require(try before.pendingRequest())
        let request = try #require(device.opened.get().last)
        // The app is killed while Authenticator has the request (here: the request ends; its kept state is what the
        // keychain still holds).
        task.cancel()
        _ = await task.result
        #expect(try before.pendingRequest() == nil)

        let after = KeptStore(key: key)
        try after.setPendingRequest(kept)
        let relaunched = try app(after)
        let answer = try #require(await emulator.authenticatorAnswer(to: request))
        #expect(MSALPublicClientApplication.handleMSALResponse(answer, sourceApplication: "com.microsoft.azureauthenticator"))
        #expect(try after.pendingRequest() == nil)
        try await eventually(within: 10, "the answer's tokens in the cache") { try !relaunched.allAccounts().isEmpty }
        let account = try #require(try relaunched.allAccounts().first)
        let silent = try await relaunched.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(silent.metadata.tokenSource == .cache)
        // Taken once: the same answer again is left to the app.
        #expect(!MSALPublicClientApplication.handleMSALResponse(answer, sourceApplication: "com.microsoft.azureauthenticator"))
        await emulator.stop()
    }

    @Test func withoutAuthenticatorTheWebViewSignsIn() async throws {
        let emulator = try await Self.emulator()
        var device = Device(emulator: emulator)
        device.installed = false
        let result = try await Self.app(emulator, device: device).acquireToken(with: Self.interactive())
        #expect(result.metadata.tokenSource == .identityProvider)
        await emulator.stop()
    }

    @Test func anAlteredAnswerIsRefused() async throws {
        let emulator = try await Self.emulator()
        var device = Device(emulator: emulator)
        device.alter = { url in
            URL(string: url.absoluteString.replacingOccurrences(of: "hash=", with: "hash=00"))!
        }
        do {
            _ = try await Self.app(emulator, device: device).acquireToken(with: Self.interactive())
            Issue.record("an altered answer was accepted")
        } catch let error as MSALErrorInfo {
            #expect(error.internalCode == .internalErrorBrokerResponseHashMismatch)
        }
        await emulator.stop()
    }

    /// An answer made by OpenSSL (the fuzz seed): AES-256-CBC with a zero IV and PKCS#7, the upper-case SHA-256.
    @Test func anAnswerEncryptedElsewhereIsRead() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus/broker-answer")
        let resume = AuthenticatorResumeState(
            authority: "https://login.microsoftonline.com/common", clientId: "0b6f1c3a-52d4-4e07-9a3b-7c1e2d4f6a80",
            redirectUri: Self.redirectUri, correlationId: UUID(), brokerNonce: "nonce-1", scopes: ["User.Read"])
        let key = Data((0..<32).map { UInt8($0) })
        func read(_ name: String) throws -> [String: String] {
            let text = try String(contentsOf: seeds.appendingPathComponent(name), encoding: .utf8)
            return try AuthenticatorBrokerResponse.fields(URL(string: text)!, key: key, resume: resume, sourceApplication: nil)
        }
        let fields = try read("authenticator-answer")
        #expect(fields["access_token"] == "at" && fields["scope"] == "User.Read openid")
        let response = try AuthenticatorBrokerResponse.tokenResponse(fields, now: Date(), correlationId: resume.correlationId)
        #expect(response.expiresIn == 3600)
        #expect(throws: MSALErrorInfo.self) { try read("authenticator-wrong-hash") }
        let failed = try read("authenticator-error")
        #expect { try AuthenticatorBrokerResponse.tokenResponse(failed, now: Date(), correlationId: resume.correlationId) } throws: {
            ($0 as? MSALErrorInfo)?.code == .userCanceled
        }
        var other = resume
        other.brokerNonce = "nonce-2"
        #expect(throws: MSALErrorInfo.self) {
            try AuthenticatorBrokerResponse.fields(URL(string: try String(contentsOf: seeds.appendingPathComponent("authenticator-answer"), encoding: .utf8))!,
                                                   key: key, resume: other, sourceApplication: nil)
        }
    }

    @Test func aURLThatIsNoAnswerIsLeftToTheApp() async throws {
        #expect(!MSALPublicClientApplication.handleMSALResponse(URL(string: "msauth.com.example.msaldemo://auth?msg_protocol_ver=3&response=x&hash=y")!,
                                                               sourceApplication: "com.microsoft.azureauthenticator"))
        #expect(!MSALPublicClientApplication.handleMSALResponse(URL(string: "https://example.com/")!, sourceApplication: "com.other.app"))
    }

    @Test func cancellingWhileAuthenticatorHasTheRequestEndsItAsCanceled() async throws {
        let emulator = try await Self.emulator()
        var device = Device(emulator: emulator)
        device.answers = false
        let app = try Self.app(emulator, device: device)
        let task = Task { try await app.acquireToken(with: Self.interactive()) }
        try await eventually(within: 10, "the request to wait for Authenticator") { AuthenticatorSessions.process.isWaiting }
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("a cancelled request returned a token")
        } catch let error as MSALErrorInfo {
            #expect(error.code == .userCanceled)
        }
        await emulator.stop()
    }
}

/// MSAL for iOS/macOS's init-time check of the schemes that find Microsoft Authenticator.
@Suite("The broker's query schemes")
struct BrokerSchemeCheckTests {
    @Test func aBrokerCapableRedirectURINeedsBothSchemesWhileTheBrokerIsAllowed() throws {
        let uri = "msauth.com.contoso.app://auth"
        #expect { try BrokerSchemeCheck.verify(redirectUri: uri, bundleId: "com.contoso.app", declared: ["msauthv2"], availability: .auto) }
            throws: { ($0 as? MSALErrorInfo)?.internalCode == .internalErrorRedirectSchemeNotRegistered }
        try BrokerSchemeCheck.verify(redirectUri: uri, bundleId: "com.contoso.app", declared: ["msauthv2", "msauthv3"], availability: .auto)
        try BrokerSchemeCheck.verify(redirectUri: uri, bundleId: "com.contoso.app", declared: nil, availability: .none)
        try BrokerSchemeCheck.verify(redirectUri: "myapp://auth", bundleId: "com.contoso.app", declared: nil, availability: .auto)
    }
}
