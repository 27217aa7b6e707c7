import Foundation
import MSAL

/// Sends `msal graph` requests with the signed-in account's token, answering one claims challenge per request.
///
/// A `401` whose `WWW-Authenticate` carries `error="insufficient_claims"` (continuous access evaluation: the
/// user's session was revoked, or a policy changed) is answered once: a silent token request with the challenge's
/// claims (which skips the cached token and refreshes), then the same request again. A second challenge is an error
/// that names the command to sign in again.
final class GraphSession {
    let application: MSALPublicClientApplication
    let account: MSALAccount
    let scopes: [String]
    let httpClient: any MSALHTTPClient
    /// Proof of possession: each request signed with msal's key.
    let pop: Bool
    private var token: String
    /// The resource's last proof-of-possession nonce.
    private var popNonce: String?

    init(application: MSALPublicClientApplication, account: MSALAccount, scopes: [String], pop: Bool = false, token: String,
         httpClient: any MSALHTTPClient) {
        self.application = application
        self.account = account
        self.scopes = scopes
        self.pop = pop
        self.token = token
        self.httpClient = httpClient
    }

    /// Sends one request; a claims challenge (or, with proof of possession, a new server nonce) is answered once.
    func send(method: String, url: URL, headers: [(name: String, value: String)], body: Data?) async throws -> MSALHTTPResponse {
        let first = try await sendOnce(method: method, url: url, headers: headers, body: body)
        if pop {
            guard first.statusCode == 401, let nonce = MSALWWWAuthenticateParameters.popNonce(fromHeaders: first.headers),
                  nonce != popNonce else { return first }
            popNonce = nonce
            return try await sendOnce(method: method, url: url, headers: headers, body: body)
        }
        guard first.statusCode == 401,
              let claims = MSALWWWAuthenticateParameters.claimsChallenge(fromHeaders: first.headers) else { return first }
        CLI.err("msal: Microsoft Graph asked for new claims (continuous access evaluation); getting a fresh token.")
        let parameters = MSALSilentTokenParameters(scopes: scopes, account: account)
        parameters.claimsRequest = try MSALClaimsRequest(jsonString: claims)
        do {
            token = try await application.acquireTokenSilent(with: parameters).accessToken
        } catch let error as MSALErrorInfo where error.code == .interactionRequired {
            throw CLIError(message: "Microsoft Graph needs a new sign-in (\(CLI.oneLine(error.errorDescription))). "
                           + "Run: \(GraphHints.loginCommand(scopes: scopes))", exitCode: CLIExit.interactionRequired)
        }
        let second = try await sendOnce(method: method, url: url, headers: headers, body: body)
        if second.statusCode == 401, MSALWWWAuthenticateParameters.claimsChallenge(fromHeaders: second.headers) != nil {
            throw CLIError(message: "Microsoft Graph still asks for new claims after a fresh token. Sign in again: "
                           + GraphHints.loginCommand(scopes: scopes), exitCode: CLIExit.interactionRequired)
        }
        return second
    }

    /// `Bearer <token>`, or with proof of possession `Pop <request signed for method and url>`.
    private func authorization(method: String, url: URL) async throws -> String {
        guard pop else { return "Bearer \(token)" }
        let parameters = MSALSilentTokenParameters(scopes: scopes, account: account)
        parameters.authenticationScheme = MSALAuthenticationSchemePop(
            httpMethod: TokenCommand.httpMethod(method) ?? .GET, requestUrl: url, nonce: popNonce, additionalParameters: nil)
        return try await application.acquireTokenSilent(with: parameters).authorizationHeader
    }

    private func sendOnce(method: String, url: URL, headers: [(name: String, value: String)], body: Data?) async throws -> MSALHTTPResponse {
        var fields: [String: String] = ["Accept": "application/json"]
        if body != nil { fields["Content-Type"] = "application/json" }
        for header in headers {
            // A header given with -H replaces the default of the same name (any case).
            for key in fields.keys where key.caseInsensitiveCompare(header.name) == .orderedSame { fields[key] = nil }
            fields[header.name] = header.value
        }
        fields["Authorization"] = try await authorization(method: method, url: url)
        let request = MSALHTTPRequest(method: method, url: url, headers: fields, body: body,
                                     timeout: MSALGlobalConfig.httpConfig.timeoutIntervalForRequest)
        // The token goes only to the URL's own origin: a redirect elsewhere is followed without it.
        do {
            return try await httpClient.sendFollowingRedirects(request)
        } catch let error as CLIError {
            throw error
        } catch {
            // Mapped as the sign-in path maps a transport failure: the kind, and what to try.
            let info = error as? MSALErrorInfo
                ?? MSALErrorInfo.transport(error, host: url.host, correlationId: nil, service: "Microsoft Graph")
            if let own = info.underlyingError as? CLIError { throw own }
            throw info
        }
    }
}
