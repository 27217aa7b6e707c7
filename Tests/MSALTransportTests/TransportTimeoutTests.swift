import Foundation
import MSALTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MSAL
@testable import MSALCore
@testable import MSALHTTPTransport
import Testing

/// Every request ends within its timeout, cancellation stops it at once, and waiting costs no CPU.
@Suite("Transport timeouts and cancellation")
struct TransportTimeoutTests {
    static func startBlackHole() async throws -> TestHTTPServer {
        try await TestHTTPServer.start { _ in .silence }
    }

    @Test("A silent endpoint fails with a timeout after the request's own timeout", arguments: TransportKind.allCases)
    func silentEndpointTimesOut(transport: TransportKind) async throws {
        let hole = try await Self.startBlackHole()
        defer { Task { await hole.stop() } }
        let request = MSALHTTPRequest(method: "POST", url: URL(string: "\(hole.baseURL)/token")!,
                                      body: Data("grant_type=refresh_token".utf8), timeout: 1)
        let started = Date()
        do {
            _ = try await transport.client.send(request)
            Issue.record("A silent server answered")
        } catch let error as URLError {
            #expect(error.code == .timedOut)
        }
        let elapsed = Date().timeIntervalSince(started)
        // Bounds that tell the request's 1 s timeout from the 60 s session default, with room for a busy machine.
        #expect(elapsed >= 0.9 && elapsed < 45, "took \(elapsed) s")
        #expect(hole.requests.count == 1)
    }

    @Test("A port nobody listens on fails at once, not at the timeout", arguments: TransportKind.allCases)
    func refusedConnectionFailsFast(transport: TransportKind) async throws {
        // A socket bound but never listening: connections to its port are refused, and no other test's server can
        // take the port meanwhile (a stopped server's port could be reused by a parallel test).
        let (socket, port) = try #require(TestSockets.boundNotListening())
        defer { close(socket) }
        // The error tells a refusal from the timeout (which would be `.timedOut`); the generous bound on the wall
        // time only catches a wait for the 300 s timeout, and stays true on a busy machine running tests in parallel.
        let request = MSALHTTPRequest(method: "GET", url: URL(string: "http://127.0.0.1:\(port)/x")!, timeout: 300)
        let started = Date()
        await #expect { _ = try await transport.client.send(request) } throws: { error in
            (error as? URLError)?.code == .cannotConnectToHost
        }
        #expect(Date().timeIntervalSince(started) < 120, "a refused connection must not wait for the 300 s timeout")
    }

    @Test("The token endpoint's timeout is a typed server error, and bounds the request: no retry once it is spent")
    func tokenEndpointTimeoutIsTyped() async throws {
        let hole = try await Self.startBlackHole()
        defer { Task { await hole.stop() } }
        let context = TokenRequestContext(http: MSALCurlHTTPClient.shared, clientId: "client", correlationId: UUID(),
                                          retryCount: 1, retryInterval: 0.1, timeout: 1, clock: MSALSystemClock(),
                                          log: MSALLog(correlationId: UUID()), throttle: ThrottleStore())
        let started = Date()
        do {
            _ = try await TokenEndpointClient(context: context).post(URL(string: "\(hole.baseURL)/token")!,
                                                                     parameters: [("grant_type", "refresh_token")])
            Issue.record("A silent server answered")
        } catch let error as MSALErrorInfo {
            #expect(error.code == .serverError)
            let underlying = error.underlyingError.map { $0 as NSError }
            #expect(underlying?.domain == NSURLErrorDomain && underlying?.code == URLError.Code.timedOut.rawValue)
        }
        let elapsed = Date().timeIntervalSince(started)
        // The upper bound only shows that the 1 s timeout ended the wait: under a full parallel test run on two cores
        // the scheduler can add many seconds (24 s seen once).
        #expect(elapsed >= 0.9 && elapsed < 45, "one attempt of 1 s took \(elapsed) s")
        // The timeout is the whole request's: the attempt that used it up is not sent again.
        #expect(hole.requests.count == 1)
    }

    @Test("Cancelling the task ends the request at once", arguments: TransportKind.allCases)
    func cancellationIsPrompt(transport: TransportKind) async throws {
        let hole = try await Self.startBlackHole()
        defer { Task { await hole.stop() } }
        let request = MSALHTTPRequest(method: "GET", url: URL(string: "\(hole.baseURL)/metadata")!, timeout: 60)
        let client = transport.client
        let task = Task { try await client.send(request) }
        try await eventually("the request reaches the server") { !hole.requests.isEmpty }
        let cancelled = Date()
        task.cancel()
        let result = await task.result
        let elapsed = Date().timeIntervalSince(cancelled)
        #expect(elapsed < 45, "returned \(elapsed) s after cancellation (the request's timeout is 60 s)")
        guard case .failure(let error) = result else {
            Issue.record("A silent server answered")
            return
        }
        #expect(error is CancellationError, "got \(error)")
    }

    @Test("A body that never ends is bounded by the timeout too")
    func endlessBodyTimesOut() async throws {
        // The head arrives at once, then the body never completes: async-http-client's own deadline stops at
        // the head, so this checks the transport's timer.
        let server = try await TestHTTPServer.start { _ in
            .respond(status: 200, headers: [("Content-Length", "1000")], body: Data("{".utf8))
        }
        defer { Task { await server.stop() } }
        let request = MSALHTTPRequest(method: "GET", url: URL(string: "\(server.baseURL)/slow")!, timeout: 1)
        let started = Date()
        await #expect(throws: URLError.self) { _ = try await MSALCurlHTTPClient.shared.send(request) }
        #expect(Date().timeIntervalSince(started) < 45, "a 1 s timeout must bound an endless body")
    }

    /// Runs `msal-transport-bench` (its own process, so that other tests' work does not count) and returns its
    /// report.
    static func bench(_ arguments: [String]) async throws -> [String: Any] {
        let output = try await ProcessRunner.run(try BuiltBinary.locate("msal-transport-bench"), arguments)
        let line = output.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("Waiting on a silent server costs no CPU (measured with getrusage)", arguments: ["curl", "nio"])
    func waitingCostsNoCPU(transport: String) async throws {
        let report = try await Self.bench(["wait", "--transport", transport, "--timeout", "3"])
        let wall = try #require(report["wall"] as? Double)
        let cpu = try #require(report["cpu"] as? Double)
        print("msal-transport-bench wait \(transport): wall \(wall) s, CPU \(cpu) s")
        #expect(report["outcome"] as? String == "URLError \(URLError.Code.timedOut.rawValue)")
        #expect(wall >= 2.9 && wall < 5)
        #expect(cpu < 0.5, "a 3 s wait cost \(cpu) s of CPU")
    }
}
