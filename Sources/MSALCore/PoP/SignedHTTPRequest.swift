import Foundation

/// A proof-of-possession request of one token call: the key and what the signed request is for.
struct PoPBinding: Sendable {
    var key: MSALPoPKeyPair
    var scheme: MSALAuthenticationSchemePop

    /// The token request's parameters that ask for a token bound to the key (`token_type=pop`, `req_cnf`).
    var tokenRequestParameters: [(String, String)] {
        [("token_type", "pop"), ("req_cnf", key.requestConfirmation)]
    }
}

/// The signed HTTP request a proof-of-possession result carries (the `Pop` authorization value), as MSAL for
/// iOS/macOS builds it (`MSIDDevicePopManager.m:109-192`): a JWS with header `{"alg","typ":"JWT","kid"}` and claims
/// `at` (the bound access token), `ts` (seconds), `u` (the URL's host), `m` (the method), `p` (the path, when there is
/// one), `nonce`, and `cnf.jwk` (the public key); the scheme's additional parameters never replace these.
enum SignedHTTPRequest {
    static func make(accessToken: String, binding: PoPBinding, now: Date, randomNonce: () -> String) throws -> String {
        let url = binding.scheme.requestUrl
        guard let host = url.host, !host.isEmpty else {
            throw MSALErrorInfo.invalidParameter("The proof-of-possession request URL has no host.")
        }
        let key = binding.key
        var claims: [String: Any] = binding.scheme.additionalParameters
        claims["at"] = accessToken
        claims["ts"] = ExternalNumber.clampedInteger(now.timeIntervalSince1970)
        claims["u"] = host.lowercased()
        claims["m"] = MSALParameterStringForHttpMethod(binding.scheme.httpMethod)
        if !url.path.isEmpty { claims["p"] = url.path }
        claims["nonce"] = binding.scheme.nonce.flatMap { $0.isEmpty ? nil : $0 } ?? randomNonce()
        claims["cnf"] = ["jwk": key.publicJWK]
        let header: [String: Any] = ["alg": key.algorithm.rawValue, "typ": "JWT", "kid": key.keyId]
        let encodedHeader = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let encodedClaims = Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let input = "\(encodedHeader).\(encodedClaims)"
        return "\(input).\(Base64URL.encode(try key.sign(Data(input.utf8))))"
    }

    /// The values of `parameters` that JSON can carry (strings, numbers, Booleans, arrays and objects of them), keyed
    /// by string; anything else is dropped.
    static func jsonSafe(_ parameters: [AnyHashable: Any]) -> [String: any Sendable] {
        var safe: [String: any Sendable] = [:]
        for (key, value) in parameters {
            guard let name = key.base as? String, let json = jsonValue(value, depth: 0) else { continue }
            safe[name] = json
        }
        return safe
    }

    private static func jsonValue(_ value: Any, depth: Int) -> (any Sendable)? {
        guard depth < 8 else { return nil }
        switch value {
        case let text as String: return text
        case let flag as Bool: return flag
        case let number as Int: return number
        case let number as Double: return number.isFinite ? number : nil
        case let list as [Any]: return list.compactMap { jsonValue($0, depth: depth + 1) } as [any Sendable]
        case let object as [String: Any]:
            var result: [String: any Sendable] = [:]
            for (name, item) in object { if let json = jsonValue(item, depth: depth + 1) { result[name] = json } }
            return result
        default: return nil
        }
    }
}
