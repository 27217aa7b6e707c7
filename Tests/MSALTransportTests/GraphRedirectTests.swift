import Foundation
import MSAL
@testable import MSALCore
@testable import MSALHTTPTransport
import MSALSamples
import Testing
import MSALTestSupport

/// Resource requests (Microsoft Graph) follow redirects, but never carry the bearer token to another origin.
@Suite("Graph redirects keep the token at home")
struct GraphRedirectTests {
    static let token = "graph-access-token-secret"

    @Test("Cross-origin redirect: followed without Authorization", arguments: TransportKind.allCases, [301, 302, 303, 307, 308])
    func crossOrigin(transport: TransportKind, status: Int) async throws {
        let download = try await TestHTTPServer.start { _ in .json(["content": "photo"]) }
        let graph = try await TestHTTPServer.start { request in
            request.path == "/v1.0/me/photo" ? .redirect(status, to: "\(download.baseURL)/blob?sig=1") : .json([:], status: 404)
        }
        defer { Task { await graph.stop(); await download.stop() } }
        let url = try #require(URL(string: "\(graph.baseURL)/v1.0/me/photo"))
        let response = try await GraphRequest.get(url, accessToken: Self.token, httpClient: transport.client)

        #expect(response.statusCode == 200)
        // This test's requests, by path: on a busy machine a server's ephemeral port may be one an earlier test's
        // server had, and a late request from that test's client can arrive too.
        #expect(graph.requests.first { $0.path == "/v1.0/me/photo" }?.header("Authorization") == "Bearer \(Self.token)")
        let received = try #require(download.requests.first { $0.path == "/blob" })
        #expect(received.header("Authorization") == nil, "the token reached another origin")
        #expect(!download.requests.contains { $0.headers.contains { $0.value.contains(Self.token) } })
    }

    @Test("Same-origin redirect: followed with Authorization", arguments: TransportKind.allCases)
    func sameOrigin(transport: TransportKind) async throws {
        let graph = try await TestHTTPServer.start { request in
            switch request.path {
            case "/v1.0/me": .redirect(302, to: "/v1.0/users/42")
            case "/v1.0/users/42": .json(["id": "42"])
            default: .json([:], status: 404)
            }
        }
        defer { Task { await graph.stop() } }
        let url = try #require(URL(string: "\(graph.baseURL)/v1.0/me"))
        let response = try await GraphRequest.get(url, accessToken: Self.token, httpClient: transport.client)

        #expect(response.statusCode == 200)
        #expect(graph.requests.map(\.path) == ["/v1.0/me", "/v1.0/users/42"])
        #expect(graph.requests.allSatisfy { $0.header("Authorization") == "Bearer \(Self.token)" })
    }

    @Test("A token stripped at one hop is not restored when a later hop comes back")
    func strippedStaysStripped() async throws {
        let graph = LockedRef<TestHTTPServer?>(nil)
        let other = try await TestHTTPServer.start { _ in .redirect(307, to: "\(graph.value?.baseURL ?? "")/v1.0/back") }
        let server = try await TestHTTPServer.start { request in
            request.path == "/v1.0/me" ? .redirect(307, to: "\(other.baseURL)/hop") : .json(["ok": true])
        }
        graph.value = server
        defer { Task { await server.stop(); await other.stop() } }
        let url = try #require(URL(string: "\(server.baseURL)/v1.0/me"))
        let response = try await GraphRequest.get(url, accessToken: Self.token, httpClient: MSALCurlHTTPClient.shared)

        #expect(response.statusCode == 200)
        #expect(server.requests.map(\.path) == ["/v1.0/me", "/v1.0/back"])
        #expect(server.requests.last?.header("Authorization") == nil)
        #expect(other.requests.first?.header("Authorization") == nil)
    }

    @Test("Redirect loops end at the limit with the last redirect")
    func loopEnds() async throws {
        let graph = try await TestHTTPServer.start { _ in .redirect(302, to: "/v1.0/me") }
        defer { Task { await graph.stop() } }
        let url = try #require(URL(string: "\(graph.baseURL)/v1.0/me"))
        let response = try await GraphRequest.get(url, accessToken: Self.token, httpClient: MSALCurlHTTPClient.shared)
        #expect(response.statusCode == 302)
        #expect(graph.requests.count == 6)
    }

    @Test("https → http downgrade is not followed")
    func downgradeRefused() throws {
        let request = MSALHTTPRequest(method: "GET", url: URL(string: "https://graph.example/v1.0/me")!,
                                      headers: ["Authorization": "Bearer x"], timeout: 5)
        let response = MSALHTTPResponse(statusCode: 302, headers: ["Location": "http://graph.example/v1.0/me"])
        #expect(MSALCurlHTTPClient.redirect(from: request, response: response) == nil)
        let upgrade = MSALHTTPResponse(statusCode: 302, headers: ["location": "https://graph.example:443/v1.0/other"])
        let next = try #require(MSALCurlHTTPClient.redirect(from: request, response: upgrade))
        #expect(next.headers["Authorization"] == "Bearer x", "same origin once the default port is filled in")
    }
}

/// A mutable reference shared with a server's answer closure.
final class LockedRef<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
