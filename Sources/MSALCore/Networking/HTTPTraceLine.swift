import Foundation

/// The redacted one-line account of an HTTP exchange, written by ``TracingHTTPClient``.
///
/// What a line holds: the method; the scheme, host, port and path of the URL (never its query, which can carry an
/// authorization code or a login hint, and never user information); the status or the kind of transport failure;
/// the duration in milliseconds; the request's `client-request-id` (the correlation id) and the server's
/// `x-ms-request-id`. For an error answer: `error`, `suberror` and the `AADSTS` codes. For a token or device code
/// answer: the names of its fields, and the names of the claims of an id token it carries. Never a header value other than those ids,
/// never a body value, a token, a code, a secret or a claim value. The user's name (`preferred_username`) is given
/// separately as personal data, for ``MSALLog`` to show only when the masking level allows it.
enum HTTPTraceLine {
    /// The correlation id the request carries (`client-request-id`), if it is a UUID.
    static func correlationId(of request: MSALHTTPRequest) -> UUID? {
        header("client-request-id", in: request.headers).flatMap(UUID.init(uuidString:))
    }

    /// The line for an answered request.
    static func answered(_ request: MSALHTTPRequest, _ response: MSALHTTPResponse, elapsed: Duration) -> String {
        var parts = ["HTTP \(method(request)) \(location(request.url)) -> \(response.statusCode) (\(milliseconds(elapsed)) ms)"]
        parts += ids(request, response)
        let object = JSONValue.parseObject(response.body)
        if (200..<300).contains(response.statusCode) {
            if let object, object.keys.contains(where: tokenFields.contains) {
                parts.append("fields=" + object.keys.sorted().prefix(32).map(token).joined(separator: ","))
                if let names = idTokenClaimNames(object) {
                    parts.append("id_token_claims=" + names.joined(separator: ","))
                }
            }
        } else if let object {
            if let error = object["error"]?.stringValue { parts.append("error=" + token(error)) }
            if let suberror = object["suberror"]?.stringValue { parts.append("suberror=" + token(suberror)) }
            let codes = stsCodes(object)
            if !codes.isEmpty { parts.append("codes=" + codes.joined(separator: ",")) }
        }
        return parts.joined(separator: " ")
    }

    /// The line for a request that got no answer.
    static func failed(_ request: MSALHTTPRequest, _ error: any Error, elapsed: Duration) -> String {
        var parts = ["HTTP \(method(request)) \(location(request.url)) failed after \(milliseconds(elapsed)) ms: \(failure(error))"]
        if let id = correlationId(of: request) { parts.append("client-request-id=\(id.uuidString)") }
        return parts.joined(separator: " ")
    }

    /// The user named by an id token in a successful answer, as personal data: `user=<preferred_username>`.
    static func personalData(_ response: MSALHTTPResponse) -> String? {
        guard (200..<300).contains(response.statusCode), let object = JSONValue.parseObject(response.body),
              let raw = object["id_token"]?.stringValue, let idToken = try? IdToken(raw: raw) else { return nil }
        let claims = idToken.claims
        guard let name = claims["preferred_username"]?.stringValue ?? claims["upn"]?.stringValue
                ?? claims["email"]?.stringValue else { return nil }
        return "user=\(name)"
    }

    // MARK: Parts

    /// Fields that mark a token or device code answer, whose field names the line lists.
    private static let tokenFields: Set<String> = ["access_token", "id_token", "refresh_token", "device_code"]

    /// The scheme, host, port and path; never the query, the fragment or user information.
    static func location(_ url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(unreadable URL)" }
        let scheme = components.scheme ?? "?"
        let host = components.percentEncodedHost ?? "?"
        let port = components.port.map { ":\($0)" } ?? ""
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return "\(scheme)://\(host)\(port)\(path)"
    }

    private static func method(_ request: MSALHTTPRequest) -> String { token(request.method.uppercased()) }

    private static func ids(_ request: MSALHTTPRequest, _ response: MSALHTTPResponse) -> [String] {
        var parts: [String] = []
        if let id = correlationId(of: request) { parts.append("client-request-id=\(id.uuidString)") }
        if let serverId = response.header("x-ms-request-id") { parts.append("x-ms-request-id=" + token(serverId)) }
        return parts
    }

    /// The kind of a transport failure, in a word; never the error's text (it may quote the URL).
    private static func failure(_ error: any Error) -> String {
        if let urlError = error as? URLError { return MSALNetworkErrorKind(urlError.code).rawValue }
        if ErrorBoundary.isCancellation(error) { return "cancelled" }
        if let info = error as? MSALErrorInfo { return "MSAL error \(info.code)" }
        return "other (\(token(String(describing: type(of: error)))))"
    }

    /// The `AADSTS` codes of an error body: `error_codes`, else the codes quoted in `error_description`.
    private static func stsCodes(_ object: [String: JSONValue]) -> [String] {
        let listed: [String] = object["error_codes"]?.arrayValue?.compactMap { value in
            if case .number(let number) = value { return ExternalNumber.integerText(number) }
            return value.stringValue
        }.filter { !$0.isEmpty && $0.allSatisfy(\.isNumber) } ?? []
        if !listed.isEmpty { return listed.prefix(8).map { "AADSTS" + String($0.prefix(12)) } }
        guard let description = object["error_description"]?.stringValue else { return [] }
        var codes: [String] = []
        var rest = Substring(description)
        while let range = rest.range(of: "AADSTS"), codes.count < 8 {
            let digits = rest[range.upperBound...].prefix { $0.isASCII && $0.isNumber }.prefix(12)
            if !digits.isEmpty, !codes.contains("AADSTS" + digits) { codes.append("AADSTS" + digits) }
            rest = rest[range.upperBound...]
        }
        return codes
    }

    /// The claim names of the answer's id token, sorted; nil when there is none or it cannot be read.
    private static func idTokenClaimNames(_ object: [String: JSONValue]) -> [String]? {
        guard let raw = object["id_token"]?.stringValue, let idToken = try? IdToken(raw: raw) else { return nil }
        return idToken.claims.keys.sorted().map(token)
    }

    /// `text` cut to 64 characters of letters, digits and `-_.:`; anything else becomes `?`. Server-chosen names
    /// and codes cannot carry a secret or a control character into the log this way.
    static func token(_ text: String) -> String {
        String(text.prefix(64).map { character -> Character in
            character.isASCII && (character.isLetter || character.isNumber || "-_.:".contains(character)) ? character : "?"
        })
    }

    private static func header(_ name: String, in headers: [String: String]) -> String? {
        if let exact = headers[name] { return exact }
        return headers.first { $0.key.lowercased() == name }?.value
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return Int(clamping: seconds) &* 1000 &+ Int(attoseconds / 1_000_000_000_000_000)
    }
}
