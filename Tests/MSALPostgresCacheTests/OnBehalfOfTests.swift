import Crypto
import Foundation
@testable import MSALCore
import MSALPostgresCache
import MSALTesting
import PostgresNIO
import Testing
import MSALTestSupport

/// A middle tier's identity provider: the scripted provider's metadata, and on-behalf-of answers (the JWT bearer
/// grant, and refresh tokens accepted once each).
final class OnBehalfOfProvider: MSALHTTPClient, @unchecked Sendable {
    let metadata: MSALScriptedIdentityProvider
    private let lock = NSLock()
    private var issued = 0
    private var live: Set<String> = []
    private(set) var grants: [String] = []
    /// Refresh token grants wait here until the test opens it.
    let refreshGate = Gate()

    init(_ metadata: MSALScriptedIdentityProvider) { self.metadata = metadata }

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        guard request.method == "POST" else { return try await metadata.send(request) }
        var form: [String: String] = [:]
        for pair in String(decoding: request.body ?? Data(), as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        let grant = form["grant_type"] ?? ""
        if grant == "refresh_token" { try await refreshGate.pass() }
        let answer: (String, String)? = lock.withLock {
            grants.append(grant)
            if grant == "refresh_token" {
                guard let token = form["refresh_token"], live.remove(token) != nil else { return nil }
            } else if grant != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
                return nil
            }
            issued += 1
            live.insert("obo-rt-\(issued)")
            return ("obo-at-\(issued)", "obo-rt-\(issued)")
        }
        guard let (accessToken, refreshToken) = answer else {
            return Self.json(400, ["error": "invalid_grant", "error_description": "AADSTS700082: refused."])
        }
        return Self.json(200, ["token_type": "Bearer", "scope": form["scope"] ?? "", "expires_in": 3600,
                               "ext_expires_in": 3600, "access_token": accessToken, "refresh_token": refreshToken,
                               "client_info": metadata.clientInfo()])
    }

    func count(_ grant: String) -> Int { lock.withLock { grants.filter { $0 == grant }.count } }

    static func json(_ status: Int, _ object: [String: Any]) -> MSALHTTPResponse {
        MSALHTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"],
                         body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
}

@Suite("PostgreSQL token cache: on-behalf-of", .enabled(if: TestDatabase.isAvailable))
struct PostgresOnBehalfOfTests {
    /// An incoming access token of the provider's user (its claims are all the cache reads of it).
    static func assertion(_ user: MSALScriptedIdentityProvider.User) -> String {
        func encode(_ object: [String: Any]) -> String {
            (try? JSONSerialization.data(withJSONObject: object))!.base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        return encode(["alg": "none", "typ": "JWT"]) + "."
            + encode(["oid": user.oid, "tid": user.tenant, "aud": "api://middle", "jti": UUID().uuidString]) + ".c2ln"
    }

    @Test func onBehalfOfTokensLiveUnderTheAssertionHashAndRefreshOnceAcrossInstances() async throws {
        try await withDatabase { table, scripted, clock in
            let provider = OnBehalfOfProvider(scripted)
            let a = try await Instance.make(scripted, clock: clock, table: table, http: provider)
            let b = try await Instance.make(scripted, clock: clock, table: table, http: provider)
            defer { Task { await a.cache.shutdown(); await b.cache.shutdown() } }
            let incoming = Self.assertion(scripted.user)
            let parameters = MSALOnBehalfOfParameters(scopes: ["https://graph.microsoft.com/User.Read"], userAssertion: incoming)
            let first = try await a.app.acquireTokenOnBehalfOf(with: parameters)
            let hash = Data(SHA256.hash(data: Data(incoming.utf8))).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            let rows = try await sql(a.cache, "SELECT partition_key FROM \(unescaped: table)")
            #expect(try rows.map { try $0.decode(String.self) } == [hash])
            #expect(try await b.app.acquireTokenOnBehalfOf(with: parameters).accessToken == first.accessToken)
            #expect(provider.count("urn:ietf:params:oauth:grant-type:jwt-bearer") == 1)
            clock.advance(3700)
            // The one refresh is held until all sixteen callers wait for it, eight in each instance.
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<16 {
                    let app = index.isMultiple(of: 2) ? a.app : b.app
                    group.addTask { try await app.acquireTokenOnBehalfOf(with: parameters).accessToken }
                }
                try await provider.refreshGate.waitForArrivals(1)
                try await eventually("eight callers waiting in each instance") {
                    let (inA, inB) = (await a.app.engine.acquisition.flights.callers,
                                      await b.app.engine.acquisition.flights.callers)
                    return inA == 8 && inB == 8
                }
                provider.refreshGate.openGate()
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(provider.count("refresh_token") == 1)
            #expect(provider.count("urn:ietf:params:oauth:grant-type:jwt-bearer") == 1)
        }
    }
}
