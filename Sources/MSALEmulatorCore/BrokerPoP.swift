import Crypto
import _CryptoExtras
import Foundation
import MSALSupport

/// How the emulated identity broker binds a proof-of-possession token asked for with `popParams` in
/// `authParameters`.
public enum EmulatedBrokerPoP: String, Codable, Sendable, CaseIterable {
    /// As msalruntime's contract describes Microsoft's broker (its `BrokerTokenResponseToJson` writes
    /// `signedHttpRequest`, `popKeyName` and `popKeyThumbprint`; `PopParametersToJson` sends no key): the token is
    /// bound to the broker's own key, and the answer carries the signed request for the `popParams`' method, host,
    /// path and nonce, in `signedHttpRequest` and as the `accessToken` msalruntime's Linux reader takes. The default.
    case brokerKey
    /// The broker's own key, the answer carrying the token type and key thumbprint but no signed request: the client
    /// asks `generateSignedHttpRequest` (`linux-broker.md` §1.6).
    case brokerKeyWithoutSignedRequest
    /// As the broker of himmelblau (commit 05c5ae17) does with `popParams.kid`: the token is bound to the client's key
    /// (`req_cnf` `{"kid": …}`), and the client signs its requests itself.
    case requestKey
}

/// The emulated broker's proof-of-possession key: RSA-2048, made when first needed, named by its RFC 7638
/// thumbprint.
struct BrokerPoPKey: Sendable {
    let key: _RSA.Signing.PrivateKey
    let jsonWebKey: [String: String]
    let keyId: String

    init() throws {
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let primitives = try key.publicKey.getKeyPrimitives()
        let e = Base64URL.encode(primitives.publicExponent), n = Base64URL.encode(primitives.modulus)
        jsonWebKey = ["e": e, "kty": "RSA", "n": n]
        keyId = Base64URL.encode(Data(SHA256.hash(data: Data("{\"e\":\"\(e)\",\"kty\":\"RSA\",\"n\":\"\(n)\"}".utf8))))
    }

    /// A signed HTTP request carrying `accessToken` for the request `popParams` describes, in the form Microsoft's
    /// .NET-family clients write (`pop.md` §1.2: header `typ` `pop`, RS256, claims `at`, `ts`, `u`, `m`, `p`, `nonce`,
    /// `cnf.jwk`, and `client_claims` when given).
    func signedRequest(accessToken: String, popParams: [String: Any], now: Int) throws -> String {
        let header: [String: Any] = ["alg": "RS256", "typ": "pop", "kid": keyId]
        var claims: [String: Any] = ["at": accessToken, "ts": now, "cnf": ["jwk": jsonWebKey],
                                     "nonce": UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()]
        func text(_ key: String) -> String? {
            (popParams[key] as? String).flatMap { $0.isEmpty || $0.utf8.count > 2048 ? nil : $0 }
        }
        // msalruntime names the host in `uriHost` and the path in `uriPath`; a whole URL in `uriHost` (as one client
        // sends it) is split here.
        if let host = text("uriHost") {
            if let url = URL(string: host), let name = url.host {
                claims["u"] = url.port.map { "\(name):\($0)" } ?? name
                if !url.path.isEmpty { claims["p"] = url.path }
            } else {
                claims["u"] = host
            }
        }
        if let path = text("uriPath") { claims["p"] = path }
        if let method = text("httpMethod") { claims["m"] = method.uppercased() }
        if let nonce = text("nonce") { claims["nonce"] = nonce }
        if let clientClaims = text("clientClaims") { claims["client_claims"] = clientClaims }
        let encode = { (object: [String: Any]) in
            Base64URL.encode(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let input = try encode(header) + "." + encode(claims)
        let signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }
}

/// A token the emulated broker bound to its own key, kept so that later calls for the same client, account and
/// scopes reuse it, and so that `generateSignedHttpRequest` can sign a request for it.
struct BrokerPoPToken: Sendable {
    var accessToken: String
    /// Milliseconds since the epoch, as the answer says.
    var expiresOn: Int64
    /// The scopes asked for, sorted and joined.
    var scopes: String
    /// The answer it was issued in (JSON, without a signed request).
    var answer: Data
}

extension EmulatorCore {
    /// The `popParams` of a token request when it asks for a proof-of-possession token (an object, whose
    /// `authenticationScheme`, when present, is `pop` in any case); nil for a bearer request.
    static func popParameters(_ parameters: [String: Any]) -> [String: Any]? {
        guard let pop = parameters["popParams"] as? [String: Any] else { return nil }
        if let scheme = pop["authenticationScheme"] as? String, scheme.lowercased() != "pop" { return nil }
        return pop
    }

    /// The broker's key, made on first use.
    func brokerPoPKey() throws -> BrokerPoPKey {
        if let key = broker.popKey { return key }
        let key = try BrokerPoPKey()
        broker.popKey = key
        return key
    }

    /// The key id a token request's `popParams` binds its token to: the client's `kid` (``EmulatedBrokerPoP/requestKey``)
    /// or the broker's own key.
    func brokerPoPKeyId(_ pop: [String: Any]) throws -> String {
        if config.brokerProofOfPossession == .requestKey {
            guard let kid = pop["kid"] as? String, !kid.isEmpty, kid.utf8.count <= 256 else {
                throw BrokerFailure(status: BrokerFailure.apiContractViolation, errorCode: 0,
                                    context: "popParams has no kid for the token to be bound to.")
            }
            return kid
        }
        return try brokerPoPKey().keyId
    }

    /// Completes a brokered answer for a proof-of-possession request: the token type (`bound`: as the token service
    /// answered, so that its faults reach the client), the key thumbprint, and (with the broker's key,
    /// ``EmulatedBrokerPoP/brokerKey``) the signed request; the token is kept for `generateSignedHttpRequest`.
    func completePoPAnswer(_ answer: inout [String: Any], pop: [String: Any], clientId: String, homeAccountId: String,
                           scopes: String, keyId: String, bound: Bool) throws {
        answer["accessTokenType"] = bound ? 1 : 0
        answer["popKeyThumbprint"] = keyId
        guard config.brokerProofOfPossession != .requestKey else { return }
        let accessToken = answer["accessToken"] as? String ?? ""
        answer["popKeyName"] = "emulated-broker-pop-key"
        if broker.popTokens.count < 1024 || broker.popTokens[Self.popTokenKey(clientId, homeAccountId)] != nil {
            broker.popTokens[Self.popTokenKey(clientId, homeAccountId)] = BrokerPoPToken(
                accessToken: accessToken, expiresOn: answer["expiresOn"] as? Int64 ?? 0, scopes: scopes,
                answer: Self.brokerJSON(answer))
        }
        try signPoPAnswer(&answer, pop: pop, accessToken: accessToken)
    }

    /// The signed request of an answer bound to the broker's key (``EmulatedBrokerPoP/brokerKey`` only), in
    /// `signedHttpRequest` and, for a bound token (`accessTokenType` 1), in `accessToken` too: msalruntime's reader
    /// of Linux broker answers (`BrokerTokenResponseFromJson`) reads no `signedHttpRequest`, takes `accessTokenType` 1
    /// for an access token the broker already signed, and answers `pop <accessToken>` as the authorization header.
    func signPoPAnswer(_ answer: inout [String: Any], pop: [String: Any], accessToken: String) throws {
        if config.brokerProofOfPossession == .brokerKey {
            let signed = try brokerPoPKey().signedRequest(accessToken: accessToken, popParams: pop, now: issueTime.stamp)
            answer["signedHttpRequest"] = signed
            if answer["accessTokenType"] as? Int == 1 { answer["accessToken"] = signed }
        }
    }

    /// `generateSignedHttpRequest` (`{"clientId", "popParams": {…, "homeAccountId"}}`, `linux-broker.md` §1.6): a
    /// signed request for the latest unexpired token the broker bound to its key for the client and account.
    func brokerSignedHTTPRequest(_ object: [String: Any]) throws -> [String: Any] {
        guard let clientId = object["clientId"] as? String, let pop = object["popParams"] as? [String: Any] else {
            throw BrokerFailure(status: BrokerFailure.apiContractViolation, errorCode: 0,
                                context: "The request needs clientId and popParams.")
        }
        let home = (pop["homeAccountId"] as? String) ?? (object["homeAccountId"] as? String) ?? ""
        guard let token = broker.popTokens[Self.popTokenKey(clientId, home)],
              token.expiresOn > Int64(issueTime.stamp) * 1000 else {
            throw BrokerFailure(status: BrokerFailure.interactionRequired, errorCode: 0,
                                context: "The broker holds no proof-of-possession token for this client and account.")
        }
        return ["signedHttpRequest": try brokerPoPKey().signedRequest(accessToken: token.accessToken, popParams: pop,
                                                                      now: issueTime.stamp)]
    }

    /// The answer of a token the broker bound to its key earlier for the same client, account and scopes, still
    /// valid for five minutes at least, with a new signed request for `pop`: a broker keeps its tokens.
    func keptPoPAnswer(pop: [String: Any], clientId: String, homeAccountId: String, scopes: String) throws -> [String: Any]? {
        guard config.brokerProofOfPossession != .requestKey,
              let kept = broker.popTokens[Self.popTokenKey(clientId, homeAccountId)], kept.scopes == scopes,
              kept.expiresOn > Int64(issueTime.stamp + 300) * 1000,
              var answer = (try? JSONSerialization.jsonObject(with: kept.answer)) as? [String: Any] else { return nil }
        try signPoPAnswer(&answer, pop: pop, accessToken: kept.accessToken)
        return answer
    }

    static func popTokenKey(_ clientId: String, _ homeAccountId: String) -> String {
        "\(clientId.lowercased())|\(homeAccountId.lowercased())"
    }
}
