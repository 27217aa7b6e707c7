public import Foundation

/// One challenge of a `WWW-Authenticate` response header (RFC 9110 §11.6.1), such as the claims challenge a
/// protected API sends under continuous access evaluation:
///
/// ```
/// WWW-Authenticate: Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize",
///     error="insufficient_claims", claims="eyJhY2Nlc3NfdG9rZW4iOnsibmJmIjp7ImVzc2VudGlhbCI6dHJ1ZSwidmFsdWUiOiIxNzAwMDAwMDAwIn19fQ=="
/// ```
///
/// Parse a header with ``parse(_:)``; most apps only need ``claimsChallenge(fromHeaders:)``, which returns the
/// claims JSON to pass back in ``MSALTokenParameters/claimsRequest`` (see <doc:ContinuousAccessEvaluation>).
public struct MSALWWWAuthenticateParameters: Sendable, Equatable, CustomStringConvertible {
    /// The authentication scheme as sent, such as `Bearer`.
    public let scheme: String
    /// The challenge's parameters, by lowercased name (parameter names are case-insensitive); quoted values are
    /// unquoted and unescaped. When a name repeats, the first value counts.
    public let parameters: [String: String]
    /// The `token68` form of the challenge (`Negotiate abc==`), when it has one instead of parameters.
    public let token68: String?

    /// Creates a challenge from its parts (parameter names are lowercased).
    public init(scheme: String, parameters: [String: String] = [:], token68: String? = nil) {
        self.scheme = scheme
        var lowered: [String: String] = [:]
        for (name, value) in parameters where lowered[name.lowercased()] == nil { lowered[name.lowercased()] = value }
        self.parameters = lowered
        self.token68 = token68
    }

    /// The value of parameter `name` (any case).
    public subscript(name: String) -> String? { parameters[name.lowercased()] }

    /// Whether the scheme is `Bearer` (any case).
    public var isBearer: Bool { scheme.caseInsensitiveCompare("Bearer") == .orderedSame }

    /// `error`, such as `insufficient_claims` or `invalid_token`.
    public var error: String? { self["error"] }
    /// `error_description`.
    public var errorDescription: String? { self["error_description"] }
    /// `realm`.
    public var realm: String? { self["realm"] }
    /// `authorization_uri`: the authority that issues tokens for the resource.
    public var authorizationURI: URL? { self["authorization_uri"].flatMap { URL(string: $0) } }
    /// `resource_id`, else `resource`: the resource the token is for.
    public var resource: String? { self["resource_id"] ?? self["resource"] }
    /// `claims` as sent (usually base64).
    public var rawClaims: String? { self["claims"] }

    /// `claims` decoded: base64 or base64url, with or without padding, or already JSON; nil unless it decodes to a
    /// UTF-8 JSON object.
    public var claims: String? {
        guard let raw = rawClaims?.trimmingCharacters(in: .whitespaces), !raw.isEmpty,
              raw.utf8.count <= WWWAuthenticateParser.maximumHeaderLength else { return nil }
        let data: Data
        if raw.hasPrefix("{") {
            data = Data(raw.utf8)
        } else {
            guard let decoded = Base64URL.decode(raw) else { return nil }
            data = decoded
        }
        guard JSONValue.parseObject(data) != nil, let text = String(data: data, encoding: .utf8) else { return nil }
        return text
    }

    /// Whether this is a claims challenge: `error="insufficient_claims"` (any case) with decodable ``claims``.
    public var isClaimsChallenge: Bool {
        error?.caseInsensitiveCompare("insufficient_claims") == .orderedSame && claims != nil
    }

    /// Every challenge of a `WWW-Authenticate` header value, in order.
    ///
    /// Several challenges may share one header (`Bearer realm="a", Basic realm="b"`); quoted strings may hold
    /// commas and backslash escapes. Input is never trusted: malformed parts are skipped, a value longer than
    /// 64 KiB yields no challenge, and at most 16 challenges of at most 64 parameters each are read.
    public static func parse(_ headerValue: String) -> [MSALWWWAuthenticateParameters] {
        WWWAuthenticateParser.parse(headerValue)
    }

    /// The challenges of every `WWW-Authenticate` header in `headers` (the name matched in any case).
    public static func parse(headers: [String: String]) -> [MSALWWWAuthenticateParameters] {
        headers.filter { $0.key.caseInsensitiveCompare("WWW-Authenticate") == .orderedSame }
            .sorted { $0.key < $1.key }
            .flatMap { parse($0.value) }
    }

    /// The claims JSON of the first claims challenge (``isClaimsChallenge``) in `headers`, or nil when there is none.
    ///
    /// Pass it to ``MSALClaimsRequest/init(jsonString:)`` and request a token silently with it: the request skips
    /// the cached access token and asks the identity provider for one that satisfies the claims.
    public static func claimsChallenge(fromHeaders headers: [String: String]) -> String? {
        parse(headers: headers).first(where: \.isClaimsChallenge)?.claims
    }

    /// Whether the scheme is `PoP` (any case): a resource that takes proof-of-possession tokens.
    public var isProofOfPossession: Bool { scheme.caseInsensitiveCompare("PoP") == .orderedSame }

    /// The server nonce of the first `PoP` challenge in `headers` (`WWW-Authenticate: PoP nonce="…"`), to sign into
    /// the next request (``MSALAuthenticationSchemePop/nonce``); nil when there is none, or when it is empty, longer
    /// than 1,024 bytes or holds a control character.
    public static func popNonce(fromHeaders headers: [String: String]) -> String? {
        guard let nonce = parse(headers: headers).first(where: \.isProofOfPossession)?["nonce"], !nonce.isEmpty,
              nonce.utf8.count <= 1024, !nonce.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return nil
        }
        return nonce
    }

    /// The scheme and parameter names; values are left out, since a challenge may carry user data.
    public var description: String {
        "MSALWWWAuthenticateParameters(scheme: \(scheme), parameters: \(parameters.keys.sorted()))"
    }
}
