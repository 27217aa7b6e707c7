import Foundation
public import Hummingbird
public import MSAL
import MSALSamples

/// The seeds' tutorial as a web app: sign in with Microsoft (authorization code with PKCE, redeemed with the app's
/// secret), show Microsoft Graph `/me`, get the token silently on every later page, sign out.
///
/// Routes: `GET /` (the user's Graph profile, or a sign-in link), `GET /signin`, `GET /callback` (the redirect),
/// `GET /signout`. The session is a random cookie id (HttpOnly, SameSite=Lax) naming server-side state: the pending
/// sign-in flow (state, nonce, PKCE verifier) and the signed-in account's id. Tokens never leave the server.
public struct WebApp: Sendable {
    let app: MSALConfidentialClientApplication
    let graphEndpoint: String
    /// The app's base URL as the browser sees it, e.g. `http://localhost:8080` (the redirect URI is its
    /// `/callback`), set once the server listens.
    let base = SessionStore.BaseURL()
    let sessions = SessionStore()

    var baseURL: String { base.value }

    public init(app: MSALConfidentialClientApplication, graphEndpoint: String) {
        self.app = app
        self.graphEndpoint = graphEndpoint.hasSuffix("/") ? graphEndpoint : graphEndpoint + "/"
    }

    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { request, _ in await home(request) }
        router.get("signin") { request, _ in await signIn(request) }
        router.get("callback") { request, _ in await callback(request) }
        router.get("signout") { request, _ in await signOut(request) }
        return router
    }

    func home(_ request: Request) async -> Response {
        let (id, isNew) = Self.sessionId(request)
        guard let accountId = await sessions.get(id).accountId,
              let account = try? app.account(forIdentifier: accountId) else {
            return Self.page("<p>You are not signed in.</p><p><a id=\"signin\" href=\"/signin\">Sign in with Microsoft</a></p>",
                             session: isNew ? id : nil)
        }
        do {
            let token = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            let response = try await GraphRequest.get(URL(string: graphEndpoint + "v1.0/me")!, accessToken: token.accessToken)
            let profile = (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
            let name = Self.escape(profile["displayName"] as? String ?? "?")
            let upn = Self.escape(profile["userPrincipalName"] as? String ?? "?")
            return Self.page("<h1 id=\"user\">Signed in as \(name)</h1><p id=\"upn\">\(upn)</p>"
                             + "<p>Graph /me answered HTTP \(response.statusCode).</p>"
                             + "<p><a id=\"signout\" href=\"/signout\">Sign out</a></p>")
        } catch {
            // The refresh token is gone or revoked: sign in again.
            await sessions.update(id) { $0.accountId = nil }
            return Self.page("<p>Your session has ended.</p><p><a id=\"signin\" href=\"/signin\">Sign in again</a></p>")
        }
    }

    func signIn(_ request: Request) async -> Response {
        let (id, isNew) = Self.sessionId(request)
        do {
            let flow = try await app.startAuthorizationCodeFlow(with: MSALAuthorizationCodeParameters(
                scopes: ["User.Read"], redirectUri: baseURL + "/callback"))
            await sessions.update(id) { $0.flow = flow }
            return Self.redirect(flow.authorizationURL.absoluteString, session: isNew ? id : nil)
        } catch {
            return Self.page("<p id=\"error\">Sign-in could not start: \(Self.escape(String(describing: error)))</p>", status: .badGateway)
        }
    }

    func callback(_ request: Request) async -> Response {
        let (id, _) = Self.sessionId(request)
        guard let flow = await sessions.take(id) else {
            return Self.page("<p id=\"error\">No sign-in is in progress.</p><p><a href=\"/\">Home</a></p>", status: .badRequest)
        }
        let items = URLComponents(string: request.uri.description)?.queryItems ?? []
        let parameters = Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        do {
            let result = try await app.acquireToken(byAuthorizationCodeFlow: flow, response: parameters)
            await sessions.update(id) { $0.accountId = result.account.identifier }
            return Self.redirect("/")
        } catch let error as MSALErrorInfo {
            return Self.page("<p id=\"error\">Sign-in failed: \(Self.escape(error.errorDescription))</p><p><a href=\"/\">Home</a></p>",
                             status: .unauthorized)
        } catch {
            return Self.page("<p id=\"error\">Sign-in failed.</p>", status: .unauthorized)
        }
    }

    func signOut(_ request: Request) async -> Response {
        let (id, _) = Self.sessionId(request)
        let accountId = await sessions.get(id).accountId
        await sessions.remove(id)
        guard let accountId, let account = try? app.account(forIdentifier: accountId),
              let endSession = try? await app.signOut(account, postLogoutRedirectUri: baseURL + "/") else {
            return Self.redirect("/")
        }
        return Self.redirect(endSession.absoluteString)
    }

    // MARK: HTTP helpers

    static func sessionId(_ request: Request) -> (String, isNew: Bool) {
        for part in (request.headers[.cookie] ?? "").split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == "session", pair[1].count == 32, pair[1].allSatisfy(\.isHexDigit) {
                return (String(pair[1]), false)
            }
        }
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255) }
        return (bytes.map { String(format: "%02x", $0) }.joined(), true)
    }

    static func page(_ body: String, status: HTTPResponse.Status = .ok, session: String? = nil) -> Response {
        let html = "<!doctype html><html><head><meta charset=\"utf-8\"><title>MSAL for Swift web app</title></head><body>"
            + body + "</body></html>"
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"]
        if let session { headers[.setCookie] = "session=\(session); Path=/; HttpOnly; SameSite=Lax" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    static func redirect(_ location: String, session: String? = nil) -> Response {
        var headers: HTTPFields = [.location: location, .cacheControl: "no-store"]
        if let session { headers[.setCookie] = "session=\(session); Path=/; HttpOnly; SameSite=Lax" }
        return Response(status: .found, headers: headers)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// Server-side sessions: the pending sign-in flow and the signed-in account id, per session cookie.
actor SessionStore {
    /// The base URL, written once when the server listens.
    final class BaseURL: @unchecked Sendable {
        private let lock = NSLock()
        private var stored = "http://localhost"
        var value: String {
            get { lock.lock(); defer { lock.unlock() }; return stored }
            set { lock.lock(); stored = newValue; lock.unlock() }
        }
    }

    struct Session: Sendable {
        var flow: MSALAuthorizationCodeFlow?
        var accountId: String?
    }

    private var sessions: [String: Session] = [:]

    func get(_ id: String) -> Session { sessions[id] ?? Session() }

    func update(_ id: String, _ change: @Sendable (inout Session) -> Void) {
        var session = sessions[id] ?? Session()
        change(&session)
        if sessions.count > 10_000 { sessions.removeAll() }
        sessions[id] = session
    }

    /// The pending flow, removed: a flow answers one redirect.
    func take(_ id: String) -> MSALAuthorizationCodeFlow? {
        let flow = sessions[id]?.flow
        sessions[id]?.flow = nil
        return flow
    }

    func remove(_ id: String) { sessions[id] = nil }
}
