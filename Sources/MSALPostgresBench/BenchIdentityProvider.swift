import Foundation
import MSALCore
import MSALTesting
import PostgresNIO

/// Marks the calls whose task sent a refresh (the provider sets it).
final class CallProbe: @unchecked Sendable {
    private let lock = NSLock()
    private var refreshedValue = false
    var refreshed: Bool { lock.withLock { refreshedValue } }
    func markRefreshed() { lock.withLock { refreshedValue = true } }
    @TaskLocal static var current: CallProbe?
}

/// The identity provider of the bench: metadata from the scripted provider; refresh tokens `rt.<user>.<generation>`
/// accepted only at the user's current generation, which PostgreSQL holds (shared by every process), so that a
/// rotated-away refresh token is detected and counted as a lost rotation.
struct BenchIdentityProvider: MSALHTTPClient {
    let metadata: MSALScriptedIdentityProvider
    let client: PostgresClient

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        guard request.method == "POST" else { return try await metadata.send(request) }
        var form: [String: String] = [:]
        for pair in String(decoding: request.body ?? Data(), as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        if form["grant_type"] == "client_credentials" {
            return Self.json(200, ["token_type": "Bearer", "expires_in": 3600, "ext_expires_in": 3600,
                                   "access_token": "app-\(UUID().uuidString)"])
        }
        let parts = (form["refresh_token"] ?? "").split(separator: ".")
        guard form["grant_type"] == "refresh_token", parts.count == 3, let user = Int(parts[1]), let generation = Int(parts[2]) else {
            return Self.json(400, ["error": "unsupported_grant_type"])
        }
        var next: Int?
        for try await value in try await client.query(
            "UPDATE bench_idp SET gen = gen + 1 WHERE uid = \("u\(user)") AND gen = \(generation) RETURNING gen"
        ).decode(Int.self) { next = value }
        guard let next else {
            try await client.query("UPDATE bench_idp SET lost = lost + 1 WHERE uid = \("u\(user)")")
            return Self.json(400, ["error": "invalid_grant", "error_description": "AADSTS700082: rotated away."])
        }
        CallProbe.current?.markRefreshed()
        let clientInfo = Base64URL.encode(Data("{\"uid\":\"\(BenchSeed.oid(user))\",\"utid\":\"\(BenchSeed.tenant)\"}".utf8))
        return Self.json(200, ["token_type": "Bearer", "scope": form["scope"] ?? "User.Read", "expires_in": 3600,
                               "ext_expires_in": 3600, "access_token": "at.\(user).\(next)",
                               "refresh_token": "rt.\(user).\(next)", "client_info": clientInfo])
    }

    static func json(_ status: Int, _ object: [String: Any]) -> MSALHTTPResponse {
        MSALHTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"],
                         body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
}
