import Foundation
import MSALLoopback
import Testing
import MSALTestSupport

/// The loopback redirect listener against real sockets: the matching response, strays, wrong state, slow and junk
/// clients, size limits, timeout and cancellation.
@Suite("Loopback redirect listener")
struct LoopbackListenerTests {
    static let state = "s7a8T3-xyz_state"

    func start(path: String = "/", port: Int = 0, requestTimeout: Duration = .seconds(10),
               maxRequestBytes: Int = 64 * 1024) async throws -> LoopbackRedirectListener {
        try await LoopbackRedirectListener.start(LoopbackConfiguration(
            path: path, expectedState: Self.state, port: port, maxRequestBytes: maxRequestBytes,
            requestTimeout: requestTimeout))
    }

    func get(_ target: String) -> String {
        "GET \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    }

    @Test func acceptsTheMatchingQueryResponseAndClosesThePort() async throws {
        let listener = try await start(path: "/accepts-and-closes")
        #expect(listener.address == "127.0.0.1")
        #expect(listener.port > 0)
        let answer = await RawConnection.exchange(
            port: listener.port, get("/accepts-and-closes?code=abc%2B1+2&state=\(Self.state)&client_info=e30"))
        #expect(statusCode(answer) == 200)
        #expect(answer?.contains("abc") == false)
        #expect(answer?.lowercased().contains("content-type: text/html") == true)
        let redirect = try await listener.waitForRedirect(timeout: .seconds(30))
        #expect(redirect.method == "GET")
        #expect(redirect.parameters == ["code": "abc+1 2", "state": Self.state, "client_info": "e30"])
        #expect(!listener.isListening)
        #expect(await RawConnection.isGone(
            port: listener.port, probe: get("/accepts-and-closes?code=probe&state=\(Self.state)")))
    }

    @Test func acceptsAFormPostOnAConfiguredPath() async throws {
        let listener = try await start(path: "/auth/callback")
        let body = "code=xyz&state=\(Self.state)&session_state=1"
        let request = "POST /auth/callback HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let answer = await RawConnection.exchange(port: listener.port, request)
        #expect(statusCode(answer) == 200)
        let redirect = try await listener.waitForRedirect(timeout: .seconds(30))
        #expect(redirect.method == "POST")
        #expect(redirect.parameters["code"] == "xyz")
        #expect(redirect.parameters["session_state"] == "1")
    }

    @Test func anOAuthErrorGetsTheFailurePage() async throws {
        let listener = try await start()
        let answer = await RawConnection.exchange(
            port: listener.port, get("/?error=access_denied&error_description=secret+detail&state=\(Self.state)"))
        #expect(statusCode(answer) == 200)
        #expect(answer?.contains("Sign-in failed") == true)
        #expect(answer?.contains("secret detail") == false)
        let redirect = try await listener.waitForRedirect(timeout: .seconds(30))
        #expect(redirect.parameters["error"] == "access_denied")
    }

    @Test func straysAndWrongStatesAreRefusedWithoutEndingTheWait() async throws {
        let listener = try await start(path: "/cb")
        let port = listener.port
        #expect(statusCode(await RawConnection.exchange(port: port, get("/favicon.ico"))) == 404)
        #expect(statusCode(await RawConnection.exchange(port: port, get("/?code=1&state=\(Self.state)"))) == 404)
        #expect(statusCode(await RawConnection.exchange(port: port, get("/cb/?code=1&state=\(Self.state)"))) == 404)
        #expect(statusCode(await RawConnection.exchange(port: port, get("/cb?code=1&state=other"))) == 400)
        #expect(statusCode(await RawConnection.exchange(port: port, get("/cb?code=1"))) == 400)
        #expect(statusCode(await RawConnection.exchange(port: port, get("/cb?code=1&state=\(Self.state)&state=x"))) == 400)
        #expect(statusCode(await RawConnection.exchange(port: port, get("/cb?state=%zz"))) == 400)
        let textPost = "POST /cb HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"
        #expect(statusCode(await RawConnection.exchange(port: port, textPost)) == 415)
        let delete = "DELETE /cb?state=\(Self.state) HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(statusCode(await RawConnection.exchange(port: port, delete)) == 405)
        #expect(listener.isListening)

        let answer = await RawConnection.exchange(port: port, get("/cb?code=good&state=\(Self.state)"))
        #expect(statusCode(answer) == 200)
        let redirect = try await listener.waitForRedirect(timeout: .seconds(30))
        #expect(redirect.parameters["code"] == "good")
    }

    @Test func aSlowClientNeitherBlocksTheSignInNorStaysConnected() async throws {
        // A request timeout long enough for a busy machine to deliver a whole request in time.
        let listener = try await start(requestTimeout: .seconds(2))
        let slow = try #require(await RawConnection.connect(port: listener.port))
        defer { slow.close() }
        await slow.send("GET /?code=1&state=\(Self.state) HTTP/1.1\r\nHost: loc")
        let silent = try #require(await RawConnection.connect(port: listener.port))
        defer { silent.close() }

        // The slow connection is dropped after the request timeout, with the wait still running.
        let dropped = await slow.readAll(timeout: 10)
        #expect(dropped.closedByPeer)
        #expect(dropped.text.isEmpty)
        #expect(listener.isListening)

        let answer = await RawConnection.exchange(port: listener.port, get("/?code=fast&state=\(Self.state)"))
        #expect(statusCode(answer) == 200)
        #expect(try await listener.waitForRedirect(timeout: .seconds(30)).parameters["code"] == "fast")
        #expect(await silent.readAll(timeout: 10).closedByPeer)
    }

    @Test func junkBytesAreAnsweredAndDoNotEndTheWait() async throws {
        let listener = try await start()
        var junk = [UInt8](repeating: 0, count: 512)
        for index in junk.indices { junk[index] = UInt8(truncatingIfNeeded: index &* 37 &+ 11) }
        let connection = try #require(await RawConnection.connect(port: listener.port))
        await connection.send(junk)
        let answer = await connection.readAll(timeout: 5)
        connection.close()
        #expect(answer.closedByPeer)
        #expect(answer.text.isEmpty || statusCode(answer.text) == 400)
        #expect(statusCode(await RawConnection.exchange(port: listener.port, "HELLO\r\n\r\n")) == 400)
        #expect(statusCode(await RawConnection.exchange(port: listener.port, "GET /\u{0}\u{1} HTTP/9.9\r\n\r\n")) == 400)
        #expect(listener.isListening)
        #expect(statusCode(await RawConnection.exchange(port: listener.port, get("/?code=ok&state=\(Self.state)"))) == 200)
        #expect(try await listener.waitForRedirect(timeout: .seconds(30)).parameters["code"] == "ok")
    }

    @Test func oversizedRequestsAreCutOff() async throws {
        let listener = try await start(maxRequestBytes: 4096)
        let big = String(repeating: "a", count: 10_000)
        let header = "GET /?code=1&state=\(Self.state) HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\n\r\n"
        let answer = await RawConnection.exchange(port: listener.port, header)
        #expect(statusCode(answer) == 413)
        let body = "code=1&state=\(Self.state)&pad=\(big)"
        let post = "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        #expect(statusCode(await RawConnection.exchange(port: listener.port, post)) == 413)
        #expect(listener.isListening)
        await listener.close()
    }

    @Test func timesOutAndClosesThePort() async throws {
        let listener = try await start(path: "/times-out")
        let port = listener.port
        await #expect(throws: LoopbackListenerError.timedOut) {
            try await listener.waitForRedirect(timeout: .milliseconds(200))
        }
        #expect(!listener.isListening)
        #expect(await RawConnection.isGone(port: port, probe: get("/times-out?code=probe&state=\(Self.state)")))
    }

    @Test func cancellationEndsTheWaitAndClosesThePort() async throws {
        let listener = try await start()
        let waiting = Task { try await listener.waitForRedirect(timeout: .seconds(30)) }
        try await eventually("the task waits for the redirect") { listener.isWaiting }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(!listener.isListening)
    }

    @Test func aResponseBeforeTheWaitIsKept() async throws {
        let listener = try await start()
        #expect(statusCode(await RawConnection.exchange(port: listener.port, get("/?state=\(Self.state)&code=early"))) == 200)
        #expect(!listener.isListening)
        #expect(try await listener.waitForRedirect().parameters["code"] == "early")
    }

    @Test func bindsTheConfiguredPortAndFailsClearlyWhenTaken() async throws {
        let first = try await start()
        await #expect(throws: LoopbackListenerError.self) {
            _ = try await LoopbackRedirectListener.start(LoopbackConfiguration(
                path: "/", expectedState: Self.state, port: first.port, bindAddresses: ["127.0.0.1"]))
        }
        let port = first.port
        await first.close()
        let second = try await start(port: port)
        #expect(second.port == port)
        await second.close()
    }
}
