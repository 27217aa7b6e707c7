import Foundation
import MSAL
@testable import MSALHTTPTransport
import Testing
import MSALTestSupport

/// What only the libcurl transport has to get right: exactly the caller's request goes out (no header libcurl adds,
/// none the caller could split), the response heads it hands over are read as the final response's fields, and
/// additional trust roots are checked before any connection.
@Suite("libcurl transport")
struct CurlTransportTests {
    @Test("Exactly the caller's method, headers and body reach the server, for every method")
    func requestAsGiven() async throws {
        let server = try await TestHTTPServer.start { _ in .respond(status: 204) }
        defer { Task { await server.stop() } }
        let transport = HTTPTransport()
        // Over 1 kB: libcurl would otherwise ask for `100 Continue` first.
        let body = Data(String(repeating: "a=b&", count: 600).utf8)
        for method in ["POST", "PUT", "PATCH", "DELETE", "GET"] {
            let response = try await transport.send(HTTPTransportRequest(
                method: method, url: URL(string: "\(server.baseURL)/\(method.lowercased())?q=1")!,
                headers: [(name: "X-Custom", value: "v"), (name: "Empty", value: "")],
                body: method == "GET" ? nil : body, timeout: HTTPTransportTests.hangBound))
            #expect(response.statusCode == 204)
        }
        let delete = try await transport.send(HTTPTransportRequest(method: "DELETE", url: URL(string: "\(server.baseURL)/bare")!,
                                                                   timeout: HTTPTransportTests.hangBound))
        #expect(delete.statusCode == 204)
        let requests = server.requests
        #expect(requests.map(\.method) == ["POST", "PUT", "PATCH", "DELETE", "GET", "DELETE"])
        for request in requests {
            let names = Set(request.headers.map { $0.name.lowercased() })
            #expect(!names.contains("accept") && !names.contains("expect") && !names.contains("user-agent"),
                    "\(request.method) carried headers it was not given: \(names.sorted())")
            if request.path != "/bare" {
                #expect(request.header("X-Custom") == "v")
                #expect(request.header("Empty") == "")
            }
        }
        #expect(requests[0].body == body && requests[3].body == body)
        #expect(requests[0].header("Content-Type") == nil, "no content type was given, so none is sent")
        #expect(requests[4].body.isEmpty && requests[5].body.isEmpty)
        try await transport.shutdown()
    }

    @Test("A header or method that would split the request is refused before anything is sent")
    func splittingRefused() async throws {
        let server = try await TestHTTPServer.start { _ in .respond(status: 204) }
        defer { Task { await server.stop() } }
        let transport = HTTPTransport()
        let url = URL(string: "\(server.baseURL)/x")!
        let bad: [HTTPTransportRequest] = [
            HTTPTransportRequest(method: "GET", url: url, headers: [(name: "X", value: "a\r\nInjected: 1")], timeout: 5),
            HTTPTransportRequest(method: "GET", url: url, headers: [(name: "X\nY", value: "a")], timeout: 5),
            HTTPTransportRequest(method: "GET", url: url, headers: [(name: "X", value: "a\u{0}b")], timeout: 5),
            HTTPTransportRequest(method: "GET /other HTTP/1.1\r\n", url: url, timeout: 5),
            HTTPTransportRequest(method: "GET", url: URL(string: "file:///etc/passwd")!, timeout: 5),
        ]
        for request in bad {
            await #expect { _ = try await transport.send(request) } throws: { error in
                (error as? HTTPTransportError)?.kind == .invalidRequest
            }
        }
        #expect(server.requests.isEmpty)
        try await transport.shutdown()
    }

    @Test("The final response's fields are read from every head libcurl hands over")
    func responseHeads() {
        let raw = "HTTP/1.1 200 Connection established\r\nProxy-Agent: p\r\n\r\n"
            + "HTTP/1.1 100 Continue\r\n\r\n"
            + "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"\"\r\nX-Folded: one\r\n two\r\n"
            + "Set-Cookie: a=1\r\nset-cookie: b=2\r\nnot a field\r\n: no name\r\nBad Name: x\r\n\r\n"
        let fields = CurlResponseHead.fields(Data(raw.utf8))
        #expect(fields.map(\.name) == ["WWW-Authenticate", "X-Folded", "Set-Cookie", "set-cookie"])
        #expect(fields[1].value == "one two")
        let response = MSALHTTPResponse(HTTPTransportResponse(statusCode: 401, headers: fields, body: Data()))
        #expect(response.header("set-cookie") == "a=1, b=2")
        #expect(response.header("Proxy-Agent") == nil, "a proxy's head is not the server's")
    }

    @Test("An additional trust root that is not a PEM certificate fails https clearly, and leaves http alone")
    func badAdditionalRoot() async throws {
        let server = try await TestHTTPServer.start { _ in .respond(status: 204) }
        defer { Task { await server.stop() } }
        for pem in ["not a certificate", "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n"] {
            let transport = HTTPTransport(configuration: HTTPTransportConfiguration(additionalTrustRootsPEM: [pem]))
            await #expect { _ = try await transport.send(HTTPTransportTests.get("https://127.0.0.1:1/x")) } throws: { error in
                let error = error as? HTTPTransportError
                return error?.kind == .secureConnectionFailed && error?.message.contains("additional trust root 1") == true
            }
            #expect(try await transport.send(HTTPTransportTests.get("\(server.baseURL)/x")).statusCode == 204)
            try await transport.shutdown()
        }
    }

    @Test("A worker idle for the idle timeout is released by the sweep; a fresher one is kept until its turn")
    func idleWorkersAreReleased() throws {
        let pool = CurlWorkerPool(idleSeconds: 60)
        let first = try pool.take(), second = try pool.take()
        let start = ContinuousClock.now
        pool.giveBack(first, now: start)
        pool.giveBack(second, now: start + .seconds(30))
        #expect(pool.idleCount == 2)
        pool.sweep(now: start + .seconds(59))
        #expect(pool.idleCount == 2)
        pool.sweep(now: start + .seconds(61))
        #expect(pool.idleCount == 1)
        pool.sweep(now: start + .seconds(91))
        #expect(pool.idleCount == 0)
    }

    @Test("An idle connection is closed after the idle timeout, without another request")
    func idleConnectionIsClosed() async throws {
        let server = try await TestHTTPServer.start { _ in .respond(status: 204) }
        defer { Task { await server.stop() } }
        let transport = HTTPTransport(configuration: HTTPTransportConfiguration(idleConnectionTimeout: 0.2))
        _ = try await transport.send(HTTPTransportTests.get("\(server.baseURL)/x"))
        // A bounded wait on the server seeing the close: the transport's own sweep closes it.
        try await eventually("the idle connection was closed") { server.closedConnections >= 1 }
        #expect(server.requests.count == 1)
        try await transport.shutdown()
    }
}
