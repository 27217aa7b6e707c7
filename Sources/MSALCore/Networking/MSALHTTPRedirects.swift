import Foundation

extension MSALHTTPResponse {
    /// Whether the status is a redirect (3xx).
    var isRedirect: Bool { (300..<400).contains(statusCode) }

    /// Returns the response, or throws when it is a redirect: requests to the identity provider (token, device
    /// code, discovery, metadata, keys) never follow one, since the body or the answer would go to, or come from,
    /// wherever the redirect names.
    func refusingRedirect(_ what: String, correlationId: UUID?) throws -> MSALHTTPResponse {
        guard isRedirect else { return self }
        var error = MSALErrorInfo.internal(
            .internalErrorUnexpectedHttpResponse,
            "\(what) answered HTTP \(statusCode) (a redirect). MSAL never follows redirects from the identity "
                + "provider; check the authority URL.",
            correlationId: correlationId)
        error.httpStatusCode = statusCode
        error.httpHeaders = headers
        throw error
    }
}

extension MSALHTTPClient {
    /// Sends a request to a resource (such as Microsoft Graph), following up to `maximumRedirects` redirects
    /// without ever handing its credentials to another origin.
    ///
    /// - A redirect to the same origin (scheme, host and port) is followed with every header.
    /// - A redirect to another origin is followed without `Authorization`, `Proxy-Authorization` and `Cookie`
    ///   (Graph sends downloads to other hosts this way), and they are not restored by later hops.
    /// - A redirect from `https` to `http`, or to another scheme, is not followed: the 3xx is returned.
    /// - 303, and 301/302 after a `POST`, continue as `GET` without a body; 307 and 308 keep the method and body.
    ///
    /// Identity-provider requests must not use this: MSAL refuses redirects for them.
    ///
    /// - Returns: The first response that is not a redirect to follow; the last redirect when the limit is reached.
    public func sendFollowingRedirects(_ request: MSALHTTPRequest, maximumRedirects: Int = 5) async throws -> MSALHTTPResponse {
        var current = request
        var response = try await send(current)
        var hops = 0
        while hops < maximumRedirects, let next = Self.redirect(from: current, response: response) {
            current = next
            response = try await send(current)
            hops += 1
        }
        return response
    }

    /// The request a redirect leads to, or nil when it is not one MSAL follows.
    static func redirect(from request: MSALHTTPRequest, response: MSALHTTPResponse) -> MSALHTTPRequest? {
        guard [301, 302, 303, 307, 308].contains(response.statusCode),
              let location = response.header("Location"),
              let target = URL(string: location, relativeTo: request.url)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "https" || scheme == "http",
              target.host?.isEmpty == false else { return nil }
        let fromScheme = request.url.scheme?.lowercased() ?? ""
        if fromScheme == "https" && scheme != "https" { return nil }
        var next = request
        next.url = target
        if response.statusCode == 303 || ([301, 302].contains(response.statusCode) && request.method == "POST") {
            next.method = "GET"
            next.body = nil
            next.headers = next.headers.filter {
                !["content-type", "content-length"].contains($0.key.lowercased())
            }
        }
        if !Origin(request.url).matches(Origin(target)) {
            next.headers = next.headers.filter {
                !["authorization", "proxy-authorization", "cookie"].contains($0.key.lowercased())
            }
        }
        return next
    }
}

/// Scheme, host and port of a URL (RFC 6454), with the scheme's default port filled in.
private struct Origin: Equatable {
    var scheme: String
    var host: String
    var port: Int?

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
    }

    func matches(_ other: Origin) -> Bool { !host.isEmpty && self == other }
}
