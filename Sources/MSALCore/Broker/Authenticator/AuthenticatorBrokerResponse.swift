package import Foundation
import Crypto
import _CryptoExtras
import MSALSupport

/// Reads Microsoft Authenticator's answer: `<redirect URI>?msg_protocol_ver=3&response=<base64url>&hash=<HEX>`,
/// where `response` is the form-encoded answer encrypted with the application's broker key (AES-256 in CBC mode, a
/// zero IV, PKCS#7 padding) and `hash` the upper-case hex SHA-256 of the plaintext. (MSAL for iOS/macOS's common
/// core: `MSIDBrokerCryptoProvider`, `MSIDBrokerResponseHandler`, `MSIDAADV2BrokerResponse`.) Every answer is outside
/// input — any app can open the redirect URI — so it is bounded, decrypted with this application's key only, checked
/// against its hash and against the request it answers.
package enum AuthenticatorBrokerResponse {
    /// The largest answer read.
    static let maximumSize = 1 << 20

    /// Whether `url` looks like a broker answer to the request `resume` describes (the redirect URI, protocol 3).
    package static func answers(_ url: URL, _ resume: AuthenticatorResumeState) -> Bool {
        guard url.absoluteString.utf8.count <= maximumSize,
              url.absoluteString.lowercased().hasPrefix(resume.redirectUri.lowercased()),
              let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery,
              let pairs = FormCoding.pairs(query, malformed: .reject, limit: 16) else { return false }
        return pairs.contains { $0.name == "msg_protocol_ver" && $0.value == AuthenticatorBrokerRequest.protocolVersion }
    }

    /// The decrypted, checked fields of an answer.
    ///
    /// - Throws: ``MSALInternalError/internalErrorBrokerResponseHashMissing``,
    ///   ``MSALInternalError/internalErrorBrokerCorruptedResponse``,
    ///   ``MSALInternalError/internalErrorBrokerResponseDecryptionFailed``,
    ///   ``MSALInternalError/internalErrorBrokerResponseHashMismatch``,
    ///   ``MSALInternalError/internalErrorBrokerMismatchedResumeState`` (another request's answer).
    package static func fields(_ url: URL, key: Data, resume: AuthenticatorResumeState,
                               sourceApplication: String?) throws -> [String: String] {
        let correlationId = resume.correlationId
        func fail(_ code: MSALInternalError, _ text: String) -> MSALErrorInfo {
            .internal(code, text, correlationId: correlationId)
        }
        guard answers(url, resume), let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery,
              let pairs = FormCoding.pairs(query, malformed: .reject, limit: 16) else {
            throw fail(.internalErrorBrokerMismatchedResumeState, "The URL is not the broker's answer to this application's request.")
        }
        let query_ = Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let hash = query_["hash"], !hash.isEmpty else {
            throw fail(.internalErrorBrokerResponseHashMissing, "The broker's answer has no hash.")
        }
        guard let encoded = query_["response"], let ciphertext = Base64URL.decode(encoded), !ciphertext.isEmpty,
              ciphertext.count % 16 == 0 else {
            throw fail(.internalErrorBrokerCorruptedResponse, "The broker's answer is not base64url ciphertext.")
        }
        let plaintext: Data
        do {
            plaintext = try AES._CBC.decrypt(ciphertext, using: SymmetricKey(data: key),
                                             iv: AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16)))
        } catch {
            throw fail(.internalErrorBrokerResponseDecryptionFailed, "The broker's answer cannot be decrypted with this application's broker key.")
        }
        guard let text = String(data: plaintext, encoding: .utf8) else {
            throw fail(.internalErrorBrokerResponseDecryptionFailed, "The broker's decrypted answer is not UTF-8 text.")
        }
        let digest = SHA256.hash(data: plaintext).map { String(format: "%02X", $0) }.joined()
        guard digest == hash else {
            throw fail(.internalErrorBrokerResponseHashMismatch, "The broker's answer does not match its hash.")
        }
        guard let decoded = FormCoding.pairs(text, malformed: .reject, limit: 256) else {
            throw fail(.internalErrorBrokerCorruptedResponse, "The broker's decrypted answer is not form-encoded.")
        }
        let fields = Dictionary(decoded.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        // The nonce ties the answer to this request; without a source application it is the only tie, so it must be
        // there.
        let nonce = fields["broker_nonce"]
        if (sourceApplication ?? "").isEmpty || nonce != nil, nonce != resume.brokerNonce {
            throw fail(.internalErrorBrokerMismatchedResumeState, "The broker's answer is for another request.")
        }
        return fields
    }

    /// The token response of a successful answer, or the error of a failed one.
    static func tokenResponse(_ fields: [String: String], now: Date, correlationId: UUID) throws -> TokenResponse {
        let succeeded = (fields["broker_error_domain"] ?? "").isEmpty
            && ["1", "true", "yes"].contains((fields["success"] ?? "").lowercased())
        guard succeeded else { throw error(fields, correlationId: correlationId) }
        func text(_ key: String) -> String? { fields[key].flatMap { $0.isEmpty ? nil : $0 } }
        return TokenResponse(accessToken: text("access_token"), tokenType: text("token_type") ?? "Bearer",
                             expiresIn: lifetime(fields, on: "expires_on", in: "expires_in", now: now),
                             extExpiresIn: lifetime(fields, on: "ext_expires_on", in: "ext_expires_in", now: now),
                             refreshIn: lifetime(fields, on: "refresh_on", in: "refresh_in", now: now),
                             scopes: text("scope")?.split(separator: " ").map(String.init),
                             refreshToken: text("refresh_token"), idToken: text("id_token"),
                             clientInfo: text("client_info"), familyId: text("foci"))
    }

    /// A lifetime of an answer, as the common core reads one (`MSIDTokenResponse.m:96-102`,
    /// `MSIDAADTokenResponse.m:62-76`): the absolute time `on` (epoch seconds) when given and not zero, else the
    /// relative `in`; nil when neither is a number. Not bounded here: the accept step bounds every broker's lifetimes.
    static func lifetime(_ fields: [String: String], on: String, in relative: String, now: Date) -> TimeInterval? {
        func number(_ key: String) -> Double? {
            guard let text = fields[key], let value = Double(text), value.isFinite else { return nil }
            return value
        }
        if let absolute = number(on), absolute != 0 { return absolute - now.timeIntervalSince1970 }
        return number(relative)
    }

    /// The MSAL error of a failed answer, as the common core builds it (`MSIDAADV2BrokerResponse.m:44-84`,
    /// `MSIDDefaultBrokerResponseHandler.m:225-293`) and MSAL converts it (``BrokerErrorMapping``): the broker's
    /// domain and code (a missing or zero code is an unknown broker error), with its OAuth fields; an answer with an
    /// OAuth error and no broker code maps as the identity platform's error.
    static func error(_ fields: [String: String], correlationId: UUID) -> MSALErrorInfo {
        let code = Int(fields["broker_error_code"] ?? "") ?? 0
        let domain = fields["broker_error_domain"] ?? ""
        if code == 0 || domain.isEmpty {
            return BrokerErrorMapping.oauth(fields, correlationId: correlationId)
                ?? .internal(.internalErrorBrokerUnknown,
                             "The broker failed" + (fields["error_description"].map { ": \($0.prefix(512))" } ?? "."),
                             correlationId: correlationId)
        }
        var userInfo = ["MSIDErrorDescriptionKey": fields["error_description"] ?? ""]
        userInfo["MSIDOAuthErrorKey"] = fields["error"]
        userInfo["MSIDOAuthSubErrorKey"] = fields["suberror"]
        return BrokerErrorMapping.apple(domain: domain, code: code, userInfo: userInfo, correlationId: correlationId)
    }
}
