import Foundation
import MSAL
import MSALEmulator
import MSALHTTPTransport
import MSALNIOTransport
import Testing
import MSALTestSupport

/// The two transports with the same promises: libcurl (Linux's default) and async-http-client.
enum TransportEngine: String, CaseIterable, Sendable {
    case curl
    case nio

    func make(_ configuration: HTTPTransportConfiguration = HTTPTransportConfiguration()) -> any TransportUnderTest {
        switch self {
        case .curl: HTTPTransport(configuration: configuration)
        case .nio: NIOHTTPTransport(configuration: configuration)
        }
    }

    var shared: any TransportUnderTest {
        switch self {
        case .curl: HTTPTransport.shared
        case .nio: NIOHTTPTransport.shared
        }
    }

    /// MSAL's client on a transport of this kind that also trusts `additionalTrustRootsPEM`.
    func client(additionalTrustRootsPEM: [String], environment: [String: String]) -> any MSALHTTPClient & Sendable {
        switch self {
        case .curl: MSALCurlHTTPClient(additionalTrustRootsPEM: additionalTrustRootsPEM, environment: environment)
        case .nio: MSALNIOHTTPClient(additionalTrustRootsPEM: additionalTrustRootsPEM, environment: environment)
        }
    }
}

protocol TransportUnderTest: Sendable {
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse
    func shutdown() async throws
}

extension HTTPTransport: TransportUnderTest {}
extension NIOHTTPTransport: TransportUnderTest {}

/// Each transport on its own: redirects returned, limits, connection reuse, lifecycle, trust roots and
/// proxies from the environment.
@Suite("HTTP transport")
struct HTTPTransportTests {
    /// What these tests wait for a local server at most. It only bounds a hang: none of them is about timing, and
    /// setting up TLS (trust roots, handshake) on a loaded 2-core machine can take several seconds.
    static let hangBound: TimeInterval = 30

    static func get(_ url: String, timeout: TimeInterval = hangBound) -> HTTPTransportRequest {
        HTTPTransportRequest(method: "GET", url: URL(string: url)!, timeout: timeout)
    }

    @Test("A redirect comes back as the response; its target receives nothing", arguments: TransportEngine.allCases)
    func redirectIsReturned(engine: TransportEngine) async throws {
        let thief = try await TestHTTPServer.start { _ in .json(["stolen": true]) }
        let server = try await TestHTTPServer.start { _ in .redirect(307, to: "\(thief.baseURL)/x") }
        defer { Task { await server.stop(); await thief.stop() } }
        let response = try await engine.shared.send(HTTPTransportRequest(
            method: "POST", url: URL(string: "\(server.baseURL)/token")!, body: Data("code=c".utf8), timeout: Self.hangBound))
        #expect(response.statusCode == 307)
        #expect(response.headers.contains { $0.name.lowercased() == "location" })
        #expect(thief.requests.isEmpty)
    }

    @Test("Connections are reused, and one the server dropped is replaced without delay", arguments: TransportEngine.allCases)
    func connectionReuse(engine: TransportEngine) async throws {
        let server = try await TestHTTPServer.start { request in
            request.path == "/close" ? .respondAndClose(status: 200, body: Data("bye".utf8)) : .json(["ok": true])
        }
        defer { Task { await server.stop() } }
        let transport = engine.make()
        _ = try await transport.send(Self.get("\(server.baseURL)/a"))
        _ = try await transport.send(Self.get("\(server.baseURL)/b"))
        let started = Date()
        _ = try await transport.send(Self.get("\(server.baseURL)/close"))
        try await eventually("the server closed the connection") { server.closedConnections >= 1 }
        let after = try await transport.send(Self.get("\(server.baseURL)/c"))
        #expect(after.statusCode == 200)
        #expect(Date().timeIntervalSince(started) < 30, "a dropped connection must be replaced, not waited on")
        let connections = server.requests.map(\.connection)
        #expect(connections[0] == connections[1], "the second request used a new connection")
        #expect(connections[3] != connections[2])
        try await transport.shutdown()
    }

    @Test("A body larger than the limit is refused", arguments: TransportEngine.allCases)
    func responseTooLarge(engine: TransportEngine) async throws {
        let server = try await TestHTTPServer.start { _ in .respond(status: 200, body: Data(count: 4096)) }
        defer { Task { await server.stop() } }
        let transport = engine.make(HTTPTransportConfiguration(maximumResponseBodySize: 1024))
        await #expect { _ = try await transport.send(Self.get("\(server.baseURL)/big")) } throws: { error in
            (error as? HTTPTransportError)?.kind == .responseTooLarge
        }
        try await transport.shutdown()
    }

    @Test("After shutdown requests fail; a transport released without shutdown closes itself", arguments: TransportEngine.allCases)
    func lifecycle(engine: TransportEngine) async throws {
        let server = try await TestHTTPServer.start { _ in .json(["ok": true]) }
        defer { Task { await server.stop() } }
        let transport = engine.make()
        _ = try await transport.send(Self.get("\(server.baseURL)/a"))
        try await transport.shutdown()
        await #expect { _ = try await transport.send(Self.get("\(server.baseURL)/b")) } throws: { error in
            (error as? HTTPTransportError)?.kind == .shutDown
        }
        // Released with an open connection: deinit starts the shutdown (a debug build traps if it does not).
        do {
            let released = engine.make()
            _ = try await released.send(Self.get("\(server.baseURL)/c"))
        }
        // The shared transport ignores shutdown.
        try await engine.shared.shutdown()
        _ = try await engine.shared.send(Self.get("\(server.baseURL)/d"))
    }

    @Test("SSL_CERT_FILE: the emulator's HTTPS authority is trusted through its CA file, and only then", arguments: TransportEngine.allCases)
    func trustRootsFromEnvironment(engine: TransportEngine) async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let metadata = emulator.authorityURL.absoluteString + "/v2.0/.well-known/openid-configuration"

        let trusting = engine.make(.fromEnvironment(["SSL_CERT_FILE": emulator.caCertificateURL.path]))
        let response = try await trusting.send(Self.get(metadata))
        #expect(response.statusCode == 200)
        try await trusting.shutdown()

        let system = engine.make(.fromEnvironment([:]))
        await #expect { _ = try await system.send(Self.get(metadata)) } throws: { error in
            (error as? HTTPTransportError)?.kind == .untrustedCertificate
        }
        try await system.shutdown()

        // A directory and a bundle together (SSL_CERT_DIR and SSL_CERT_FILE, as many systems set both), plus a CA
        // given as PEM: all three are trusted.
        let certificateDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: certificateDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: certificateDirectory) }
        let both = engine.client(additionalTrustRootsPEM: [emulator.caCertificatePEM],
                                 environment: ["SSL_CERT_DIR": certificateDirectory.path, "SSL_CERT_FILE": emulator.caCertificateURL.path])
        let viaBoth = try await both.send(MSALHTTPRequest(method: "GET", url: URL(string: metadata)!, timeout: Self.hangBound))
        #expect(viaBoth.statusCode == 200)

        let dirAndBundle = engine.make(.fromEnvironment(["SSL_CERT_DIR": certificateDirectory.path,
                                                                          "SSL_CERT_FILE": emulator.caCertificateURL.path]))
        #expect(try await dirAndBundle.send(Self.get(metadata)).statusCode == 200)
        try await dirAndBundle.shutdown()

        // Through MSAL's client, with the CA handed over as PEM.
        let client = engine.client(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        let viaMSAL = try await client.send(MSALHTTPRequest(method: "GET", url: URL(string: metadata)!, timeout: Self.hangBound))
        #expect(viaMSAL.statusCode == 200)
    }

    @Test("An unreadable SSL_CERT_FILE fails https requests clearly and leaves http alone", arguments: TransportEngine.allCases)
    func unreadableTrustStore(engine: TransportEngine) async throws {
        let server = try await TestHTTPServer.start { _ in .json(["ok": true]) }
        defer { Task { await server.stop() } }
        let transport = engine.make(.fromEnvironment(["SSL_CERT_FILE": "/nonexistent/ca.pem"]))
        await #expect { _ = try await transport.send(Self.get("https://127.0.0.1:1/x")) } throws: { error in
            let error = error as? HTTPTransportError
            return error?.kind == .secureConnectionFailed && error?.message.contains("/nonexistent/ca.pem") == true
        }
        #expect(try await transport.send(Self.get("\(server.baseURL)/x")).statusCode == 200)
        try await transport.shutdown()
    }

    @Test("Proxy settings from the environment")
    func proxyEnvironment() {
        let configuration = HTTPTransportConfiguration.fromEnvironment([
            "HTTPS_PROXY": "http://user:p%40ss@proxy.example:3128",
            "HTTP_PROXY": "http://ignored.example:1",
            "NO_PROXY": ".internal.example, example.org:8080, [fd00::1], *.corp",
        ])
        let proxy = configuration.proxy
        let server = HTTPProxySettings.Server(host: "proxy.example", port: 3128, username: "user", password: "p@ss")
        #expect(proxy.https == server)
        #expect(proxy.http == nil, "upper-case HTTP_PROXY is ignored")
        #expect(proxy.server(scheme: "https", host: "login.microsoftonline.com") == server)
        #expect(proxy.server(scheme: "https", host: "a.internal.example") == nil)
        #expect(proxy.server(scheme: "https", host: "internal.example") == nil)
        #expect(proxy.server(scheme: "https", host: "EXAMPLE.org") == nil)
        #expect(proxy.server(scheme: "https", host: "notexample.org") == server)
        #expect(proxy.server(scheme: "https", host: "fd00::1") == nil)
        #expect(proxy.server(scheme: "https", host: "x.corp") == nil)
        #expect(proxy.server(scheme: "https", host: "127.0.0.1") == nil, "loopback is always direct")
        #expect(proxy.server(scheme: "https", host: "127.evil.example") == server)
        #expect(proxy.server(scheme: "http", host: "login.microsoftonline.com") == nil)

        let lower = HTTPTransportConfiguration.fromEnvironment(["https_proxy": "proxy:8080", "http_proxy": "socks5://s:1",
                                                                "no_proxy": "*"])
        #expect(lower.proxy.https == HTTPProxySettings.Server(host: "proxy", port: 8080))
        #expect(lower.proxy.http == nil, "schemes other than http are not spoken")
        #expect(lower.proxy.server(scheme: "https", host: "login.microsoftonline.com") == nil)
    }

    @Test("Requests to non-loopback hosts go through the proxy, with its credentials",
          arguments: TransportEngine.allCases, ["http", "https"])
    func proxyIsUsed(engine: TransportEngine, scheme: String) async throws {
        // The proxy refuses the tunnel: enough to see what reached it, with no network beyond loopback.
        let proxy = try await TestHTTPServer.start { _ in .respond(status: 407) }
        defer { Task { await proxy.stop() } }
        let address = proxy.baseURL.replacingOccurrences(of: "http://", with: "http://user:secret@")
        let transport = engine.make(.fromEnvironment(["http_proxy": address, "HTTPS_PROXY": address]))
        await #expect { _ = try await transport.send(Self.get("\(scheme)://graph.invalid/v1.0/me")) } throws: { error in
            (error as? HTTPTransportError)?.kind == .proxyFailed
        }
        let tunnel = try #require(proxy.requests.first)
        #expect(tunnel.method == "CONNECT")
        #expect(tunnel.uri == "graph.invalid:\(scheme == "https" ? 443 : 80)")
        #expect(tunnel.header("Proxy-Authorization") == "Basic " + Data("user:secret".utf8).base64EncodedString())
        // Loopback is never proxied.
        let direct = try await TestHTTPServer.start { _ in .json(["direct": true]) }
        defer { Task { await direct.stop() } }
        #expect(try await transport.send(Self.get("\(direct.baseURL)/x")).statusCode == 200)
        #expect(proxy.requests.count == 1)
        try await transport.shutdown()
    }
}
