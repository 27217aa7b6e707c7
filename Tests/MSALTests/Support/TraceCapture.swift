import Foundation
import Logging
import MSAL
@testable import MSALCore

/// A swift-log handler that keeps every message with its metadata: to read the HTTP trace (and check that no secret
/// is in it), and the cache storage's warnings (`CacheTestLogHandler`).
final class TraceRecordingLogHandler: LogHandler, @unchecked Sendable {
    let messages = LockedBox<[String]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let details = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        messages.withLock { $0.append("\(event.level): \(details) \(event.message)") }
    }

    var all: [String] { messages.get() }
    var text: String { all.joined(separator: "\n") }

    /// A logger writing to a new recorder.
    static func logger() -> (Logger, TraceRecordingLogHandler) {
        let handler = TraceRecordingLogHandler()
        return (Logger(label: "msal.trace.tests", factory: { _ in handler }), handler)
    }

    /// Logger settings for one application: the verbose level, personal data shown only when `pii`.
    static func settings(pii: Bool) -> MSALLoggerConfig {
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
