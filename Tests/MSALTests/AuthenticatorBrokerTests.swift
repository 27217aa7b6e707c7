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
        if let device { config.brokerOptions = MSALBrokerOptions(brokerApp: MSALBrokerApp(opener: device, keyStore: MSALInMemoryBrokerKeyStore()), bundleIdentifier: "com.example.msaldemo") }
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

    /// `shouldRequestBoundAppRefreshTokens` is not acted on: a bound app refresh token is redeemed only with a JWT
    /// signed by the device registration's Secure Enclave key (MSAL for iOS/macOS's common core,
    /// `MSIDBoundRefreshTokenGrantRequest.m:41-127`), so the request never asks for one, and Authenticator's ordinary
    /// refresh token is stored and redeemed later.
    @Test func aBoundAppRefreshTokenIsNeverAskedFor() async throws {
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
        #expect(!request.absoluteString.contains("bound_rt_redeem"))
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
        parameters.forceRefresh = true
        #expect(try await app.acquireTokenSilent(with: parameters).metadata.tokenSource == .identityProvider)
        await emulator.stop()
    }

    /// An app whose redirect URI is not broker-capable (a web URI, another custom scheme, or ours with another
    /// bundle id) signs in through its web view while Authenticator is installed, as MSAL for iOS/macOS decides
    /// (`MSALPublicClientApplication.m:1782-1796`): Authenticator is never opened.
    @Test(arguments: ["https://app.contoso.example/msal/auth", "myapp://callback", "msauth.com.example.other://auth"])
    func aNonBrokerRedirectURISignsInThroughTheWebView(redirect: String) async throws {
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
        config.brokerOptions = MSALBrokerOptions(brokerApp: MSALBrokerApp(opener: device, keyStore: MSALInMemoryBrokerKeyStore()),
                                                 bundleIdentifier: "com.example.msaldemo")
        let app = try MSALPublicClientApplication(configuration: config)
        #expect(app.isCompatibleAADBrokerAvailable)
        let result = try await app.acquireToken(with: Self.interactive())
        #expect(result.metadata.tokenSource == .identityProvider)
        #expect(device.opened.get().isEmpty)
        await emulator.stop()
    }

    /// The user comes back from Authenticator without an answer: when the app is active again, the sign-in ends with
    /// `internalErrorBrokerResponseNotReceived` (MSAL for iOS/macOS's common core, `MSIDBrokerInteractiveController.m:382-464`),
    /// and the next sign-in starts.
    @Test func anAbandonedSignInEndsWhenTheAppIsActiveAgain() async throws {
        let emulator = try await Self.emulator()
        var silent = Device(emulator: emulator)
        silent.answers = false
        let app = try Self.app(emulator, device: silent)
        let task = Task { try await app.acquireToken(with: Self.interactive()) }
        try await eventually(within: 10, "the request to wait for Authenticator") { AuthenticatorSessions.process.isWaiting }
        // Becoming active without having been in the background (an alert, a call) ends nothing.
        NotificationCenter.default.post(name: AuthenticatorSessions.didBecomeActive, object: nil)
        #expect(AuthenticatorSessions.process.isWaiting)
        NotificationCenter.default.post(name: AuthenticatorSessions.willEnterForeground, object: nil)
        NotificationCenter.default.post(name: AuthenticatorSessions.didBecomeActive, object: nil)
        do {
            _ = try await task.value
            Issue.record("an abandoned sign-in returned a token")
        } catch let error as MSALErrorInfo {
            #expect(error.code == .internal && error.internalCode == .internalErrorBrokerResponseNotReceived)
        }
        #expect(!AuthenticatorSessions.process.isWaiting)
        let next = try await Self.app(emulator, device: Device(emulator: emulator)).acquireToken(with: Self.interactive())
        #expect(next.metadata.tokenSource == .broker)
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
            config.brokerOptions = MSALBrokerOptions(brokerApp: MSALBrokerApp(opener: device, keyStore: store), bundleIdentifier: "com.example.msaldemo")
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
    /// `MSIDRedirectUri.m:73-132`: MSAL's form and ADAL's are broker-capable; web URIs and other forms are not.
    @Test func brokerCapableRedirectURIsAreMSALsAndADALsForms() {
        #expect(BrokerSchemeCheck.isBrokerCapable("msauth.com.contoso.app://auth", bundleId: "com.contoso.app"))
        #expect(BrokerSchemeCheck.isBrokerCapable("x-msauth-app://com.contoso.app", bundleId: "com.contoso.app"))
        #expect(!BrokerSchemeCheck.isBrokerCapable("msauth.com.other.app://auth", bundleId: "com.contoso.app"))
        #expect(!BrokerSchemeCheck.isBrokerCapable("msauth.com.contoso.app://callback", bundleId: "com.contoso.app"))
        #expect(!BrokerSchemeCheck.isBrokerCapable("https://com.contoso.app", bundleId: "com.contoso.app"))
        #expect(!BrokerSchemeCheck.isBrokerCapable("msauth.com.contoso.app://auth", bundleId: nil))
    }

    /// `MSALPublicClientApplication.m:197-208`: a Microsoft Entra authority (not `consumers`) needs a broker-capable
    /// redirect URI when the application is created, unless the validation is bypassed.
    @Test func anEntraAuthorityNeedsABrokerCapableRedirectURIAtCreation() throws {
        let organizations = try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/organizations")!)
        let consumers = try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/consumers")!)
        #expect { try BrokerSchemeCheck.verifyBrokerCapable(redirectUri: "myapp://callback", bundleId: "com.contoso.app",
                                                           authority: organizations, bypass: false) }
            throws: { ($0 as? MSALErrorInfo)?.internalCode == .internalErrorInvalidRedirectURI }
        try BrokerSchemeCheck.verifyBrokerCapable(redirectUri: "myapp://callback", bundleId: "com.contoso.app",
                                                  authority: organizations, bypass: true)
        try BrokerSchemeCheck.verifyBrokerCapable(redirectUri: "myapp://callback", bundleId: "com.contoso.app",
                                                  authority: consumers, bypass: false)
        try BrokerSchemeCheck.verifyBrokerCapable(redirectUri: "msauth.com.contoso.app://auth", bundleId: "com.contoso.app",
                                                  authority: organizations, bypass: false)
    }

    @Test func aBrokerCapableRedirectURINeedsBothSchemesWhileTheBrokerIsAllowed() throws {
        let uri = "msauth.com.contoso.app://auth"
        #expect { try BrokerSchemeCheck.verify(redirectUri: uri, bundleId: "com.contoso.app", declared: ["msauthv2"], availability: .auto) }
            throws: { ($0 as? MSALErrorInfo)?.internalCode == .internalErrorRedirectSchemeNotRegistered }
        try BrokerSchemeCheck.verify(redirectUri: uri, bundleId: "com.contoso.app", declared: ["msauthv2", "msauthv3"], availability: .auto)
        try BrokerSchemeCheck.verify(redirectUri: uri, bundleId: "com.contoso.app", declared: nil, availability: .none)
        try BrokerSchemeCheck.verify(redirectUri: "myapp://auth", bundleId: "com.contoso.app", declared: nil, availability: .auto)
    }
}
