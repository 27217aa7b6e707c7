import Foundation
import MSALTestSupport
import Logging
import MSAL
@testable import MSALCore

extension MSALLoggerConfig {
    /// Logger settings for one application: the verbose level, personal data shown only when `pii`.
    static func verbose(pii: Bool) -> MSALLoggerConfig {
        let config = MSALLoggerConfig()
        config.logLevel = .verbose
        config.logMaskingLevel = pii ? .settingsMaskSecretsOnly : .settingsMaskAllPII
        return config
    }
}

/// A transport in front of MSAL's default one that collects every secret that crossed it: the authorization code,
/// PKCE verifier, refresh token, device code, client secret and assertion sent, and the tokens and codes received.
final class SecretCollectingHTTPClient: MSALHTTPClient, Sendable {
    static let requestFields = ["code", "code_verifier", "refresh_token", "client_secret", "client_assertion",
                                "assertion", "device_code"]
    static let responseFields = ["access_token", "refresh_token", "id_token", "device_code", "user_code", "client_info"]

    private let collected = LockedBox<[String: Set<String>]>([:])

    /// Every secret by field name.
    var secrets: [String: Set<String>] { collected.get() }
    /// Every secret value.
    var allSecrets: Set<String> { secrets.values.reduce(into: Set()) { $0.formUnion($1) } }

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        if let body = request.body {
            let form = FormEncoding.decode(String(decoding: body, as: UTF8.self))
            for field in Self.requestFields { if let value = form[field], !value.isEmpty { note(field, value) } }
        }
        let response = try await MSALDefaultHTTPClient.shared.send(request)
        if let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any] {
            for field in Self.responseFields {
                if let value = object[field] as? String, !value.isEmpty { note(field, value) }
            }
        }
        return response
    }

    private func note(_ field: String, _ value: String) {
        collected.withLock { $0[field, default: []].insert(value) }
    }
}
