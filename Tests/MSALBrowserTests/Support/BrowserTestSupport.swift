import Foundation
import MSALTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MSAL
import MSALEmulator
import MSALLoopback

/// Where Chromium and chromedriver are, and whether the browser tests must run.
enum BrowserTools {
    static let environment = ProcessInfo.processInfo.environment

    /// `MSAL_BROWSER_TESTS_REQUIRED=1`: a missing browser is a failure, not a skip.
    static let required = environment["MSAL_BROWSER_TESTS_REQUIRED"] == "1"

    /// `MSAL_CHROMEDRIVER` when set, else `chromedriver` on `PATH`.
    static let chromedriver: String? = executable(environment["MSAL_CHROMEDRIVER"]) ?? find("chromedriver")
    /// `MSAL_CHROMIUM` when set, else `chromium` (or `chromium-browser`, `google-chrome`) on `PATH`.
    static let chromium: String? = executable(environment["MSAL_CHROMIUM"])
        ?? find("chromium") ?? find("chromium-browser") ?? find("google-chrome")

    static var available: Bool { !(chromedriver ?? "").isEmpty && !(chromium ?? "").isEmpty }

    static let skipMessage = "Chromium and chromedriver are not installed (apt-get install chromium chromium-driver; "
        + "scripts/test.sh installs them); set MSAL_BROWSER_TESTS_REQUIRED=1 to make this a failure"

    private static func executable(_ path: String?) -> String? {
        guard let path else { return nil }
        return FileManager.default.isExecutableFile(atPath: path) ? path : ""
    }

    private static func find(_ name: String) -> String? {
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// A value behind a lock, for test doubles shared across tasks.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    var current: Value { lock.withLock { value } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&value) } }
}

/// A clock the test moves forward.
final class ManualClock: MSALClock, @unchecked Sendable {
    private let offset = Locked<TimeInterval>(0)
    func now() -> Date { Date().addingTimeInterval(offset.current) }
    func advance(_ seconds: TimeInterval) { offset.update { $0 += seconds } }
}

/// An opener that records the URLs and then plays a browser that answers the redirect itself: the given
/// parameters (with the request's `state`) are sent to the `redirect_uri` of the authorization URL.
struct AnsweringOpener: BrowserOpener {
    let opened = Locked<[URL]>([])
    let answer: [String: String]
    var method = "GET"

    func open(_ url: URL) async throws {
        opened.update { $0.append(url) }
        let query = Dictionary(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
            .map { ($0.name, $0.value ?? "") } ?? [], uniquingKeysWith: { first, _ in first })
        guard let redirect = query["redirect_uri"], let target = URL(string: redirect) else { return }
        var parameters = answer
        parameters["state"] = parameters["state"] ?? query["state"]
        var form = URLComponents()
        form.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let encoded = form.percentEncodedQuery ?? ""
        var request: URLRequest
        if method == "POST" {
            request = URLRequest(url: target)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(encoded.utf8)
        } else {
            request = URLRequest(url: URL(string: "\(redirect)?\(encoded)")!)
        }
        _ = try await URLSession.shared.data(for: request)
    }

    /// The query of the n-th opened URL.
    func query(_ index: Int = 0) -> [String: String] {
        let urls = opened.current
        guard index < urls.count else { return [:] }
        return Dictionary(URLComponents(url: urls[index], resolvingAgainstBaseURL: false)?.queryItems?
            .map { ($0.name, $0.value ?? "") } ?? [], uniquingKeysWith: { first, _ in first })
    }
}

/// An opener that only records, never answering (the user walked away).
struct SilentOpener: BrowserOpener {
    let opened = Locked<[URL]>([])
    func open(_ url: URL) async throws { opened.update { $0.append(url) } }
}

/// An output sink that collects the messages.
final class CollectedOutput: @unchecked Sendable {
    private let lines = Locked<[String]>([])
    var text: String { lines.current.joined() }
    var sink: MSALSystemBrowserWebAuthenticator.OutputSink { { [lines] message in lines.update { $0.append(message) } } }
}

/// An application against the emulator (authority `http://127.0.0.1:PORT/<tenant>`, in-memory cache).
func makeApplication(_ emulator: IdentityEmulator, clock: any MSALClock = MSALSystemClock(),
                     redirectUri: String = "http://localhost") throws -> MSALPublicClientApplication {
    let url = URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!
    let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: redirectUri,
                                                   authority: try MSALAuthority(url: url))
    config.clock = clock
    config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
    return try MSALPublicClientApplication(configuration: config)
}

/// Interactive parameters that use `authenticator`.
func interactiveParameters(_ scopes: [String], _ authenticator: any MSALWebAuthenticator) -> MSALInteractiveTokenParameters {
    let webview = MSALWebviewParameters()
    webview.webAuthenticator = authenticator
    return MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview)
}

/// GET with a bearer token; returns the status and the JSON object.
func getJSON(_ url: URL, authorization: String) async throws -> (Int, [String: Any]) {
    var request = URLRequest(url: url)
    request.setValue(authorization, forHTTPHeaderField: "Authorization")
    let (data, response) = try await URLSession.shared.data(for: request)
    let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, object)
}

/// An opener for an emulator with auto-approval: it GETs the authorization URL without following redirects and
/// then GETs the redirect it answers with (the loopback listener), as a browser would.
struct AutoApproveOpener: BrowserOpener {
    func open(_ url: URL) async throws {
        let (_, headers, _) = try await NoRedirectFetcher.fetch(url)
        guard let location = headers["location"], let target = URL(string: location) else { return }
        _ = try await NoRedirectFetcher.fetch(target)
    }
}

/// An emulator that approves sign-ins of its default user at once.
func startAutoApprovingEmulator() async throws -> IdentityEmulator {
    var configuration = EmulatorConfiguration.default
    configuration.autoApproveUsername = configuration.defaults.username
    return try await IdentityEmulator.start(configuration)
}

extension MSALWebAuthenticator {
    /// Prepares a sign-in, then presents an authorization URL naming the prepared redirect URI and the state, as
    /// MSAL does.
    func signIn(_ request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
        let session = try await prepare(request)
        let url = URL(string: "https://login.example/authorize?redirect_uri=\(session.redirectUri)&state=\(request.state)")!
        return try await session.present(url)
    }
}
