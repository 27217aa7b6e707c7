import Foundation
import MSAL
import MSALEmulator
import MSALTesting
import Security
import Testing

/// The suite every Apple test belongs to: they share the stand-in's keychain, screen and sessions, so they run one
/// at a time.
@Suite("Apple platforms (against the transcribed SDK surface)", .serialized)
struct AppleSurfaceTests {}

enum AppleFixture {
    static let team = "ABCDE12345"
    static let group = "com.microsoft.adalcache"
    static var accessGroup: String { "\(team).\(group)" }
    static let redirectUri = "msauth.com.example.app://auth"
    static let client = "b6c69a37-df96-4db0-9088-2ab96e1d8215"
    static let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
    static let oid = "9f4880d8-80ba-4c40-97bc-f7a23c703084"
    static var home: String { "\(oid).\(tenant)" }
    static let environment = "login.microsoftonline.com"
    static var itemAccount: String { "\(home)-\(environment)" }

    /// A keychain where the app is entitled to its own group (the default) and the shared MSAL group.
    static func resetKeychain(entitled: Bool = true) {
        SurfaceKeychain.shared.reset(entitledAccessGroups: entitled ? ["\(team).com.example.app", accessGroup] : [])
    }

    /// An application as the seeds make it, with the platform's default storage and user agent, talking to
    /// `provider`.
    static func app(_ provider: MSALScriptedIdentityProvider, group: String = group) throws -> MSALPublicClientApplication {
        try MSALPublicClientApplication(configuration: config(provider, group: group))
    }

    /// The configuration of ``app(_:group:)``, for a test to change before it creates the application.
    static func config(_ provider: MSALScriptedIdentityProvider, group: String = group) throws -> MSALPublicClientApplicationConfig {
        let authority = try MSALAADAuthority(url: URL(string: "https://\(provider.host)/common")!)
        let config = MSALPublicClientApplicationConfig(clientId: provider.clientId, redirectUri: redirectUri,
                                                       authority: authority)
        config.httpClient = provider
        config.cacheConfig.keychainSharingGroup = group
        return config
    }

    /// The emulator, its demo user approving every sign-in, and an application as the seeds make it (the platform's
    /// default storage and user agent, redirect URI `msauth.com.example.msaldemo://auth`) talking to it over TLS.
    static func emulatorApp() async throws -> (emulator: IdentityEmulator, app: MSALPublicClientApplication) {
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId,
                                                       redirectUri: "msauth.com.example.msaldemo://auth",
                                                       authority: try MSALAADAuthority(url: emulator.authorityURL))
        config.httpClient = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        config.cacheConfig.keychainSharingGroup = group
        config.brokerOptions.bundleIdentifier = "com.example.msaldemo"
        return (emulator, try MSALPublicClientApplication(configuration: config))
    }

    /// A fresh keychain and session history, a provider whose sign-in page answers every session, and a view
    /// controller shown in a key window.
    @MainActor
    static func interactive() -> (provider: MSALScriptedIdentityProvider, shown: ShownController) {
        resetKeychain()
        SurfaceAuthenticationSessions.reset()
        let provider = MSALScriptedIdentityProvider()
        answerSessions(with: provider)
        return (provider, ShownController())
    }

    /// The cache entry items in the keychain (without the team-id marker).
    static var storedEntries: [SurfaceKeychain.Item] {
        SurfaceKeychain.shared.storedItems.filter { $0.account != "SDK.ObjC.teamIDHint" }
    }

    /// Answers each started authentication session as the provider's sign-in page would: with a code for the
    /// authorization URL, redirected to the session's callback scheme; `fromBackground`: the completion handler
    /// called on a background queue, as macOS calls it.
    @MainActor
    static func answerSessions(with provider: MSALScriptedIdentityProvider, fromBackground: Bool = false) {
        SurfaceAuthenticationSessions.handler = { started in
            let session = started.session
            var components = URLComponents(string: redirectUri)!
            if session.surfaceURL.path.hasSuffix("/authorize") {
                components.queryItems = provider.authorize(session.surfaceURL).map { URLQueryItem(name: $0.key, value: $0.value) }
            } else {
                let query = URLComponents(url: session.surfaceURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
                components.queryItems = query.filter { $0.name == "state" }
            }
            if fromBackground {
                session.surfaceCompleteFromBackground(callbackURL: components.url, error: nil)
            } else {
                session.surfaceComplete(callbackURL: components.url, error: nil)
            }
        }
    }
}

extension MSALErrorInfo {
    /// The underlying error as `NSError`.
    var underlyingNSError: NSError? { underlyingError.map { $0 as NSError } }
}

#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif
import AuthenticationServices

/// A view controller shown in a key window, as an app's is when the user taps "Sign in".
@MainActor
struct ShownController {
    let controller: MSALViewController
    let window: ASPresentationAnchor
    #if canImport(UIKit)
    let scene: UIWindowScene
    #endif

    init() {
        #if canImport(UIKit)
        scene = UIWindowScene(surfaceActivationState: .foregroundActive)
        window = UIWindow(windowScene: scene)
        controller = UIViewController()
        window.rootViewController = controller
        window.makeKeyAndVisible()
        SurfaceScreen.connect([scene])
        #else
        SurfaceScreen.reset()
        window = NSWindow()
        controller = NSViewController()
        window.contentViewController = controller
        window.makeKeyAndOrderFront(nil)
        #endif
    }
}
