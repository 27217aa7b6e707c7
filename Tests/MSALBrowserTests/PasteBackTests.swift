import Foundation
import MSALTestSupport
import Testing
@testable import MSALCore
import MSAL
import MSALLoopback
@testable import MSALSystemBrowser

/// Paste-back sign-in: the pasted address's checks, the ladder's choice, and the race between a real loopback
/// listener and pasted lines.
@Suite("Paste-back sign-in and the sign-in ladder")
struct PasteBackTests {
    let redirect = "http://localhost:51234/"
    let state = "s-123"

    @Test func acceptsThisSignInsRedirect() throws {
        let parameters = try PastedRedirect.parse("  \"http://localhost:51234/?code=abc&state=s-123&session_state=x\"\n",
                                                  redirectURI: redirect, state: state)
        #expect(parameters["code"] == "abc")
        #expect(parameters["session_state"] == "x")
        let denied = try PastedRedirect.parse("http://LOCALHOST:51234/?error=access_denied&error_description=No+way&state=s-123",
                                              redirectURI: redirect, state: state)
        #expect(denied["error_description"] == "No way")
    }

    @Test func refusesEverythingElse() {
        let cases: [(String, PastedRedirectError)] = [
            ("   ", .empty),
            ("code=abc&state=s-123", .notAURL),
            ("https://localhost:51234/?code=abc&state=s-123", .notAURL),
            ("http://localhost:51235/?code=abc&state=s-123", .otherRedirectURI),
            ("http://127.0.0.1:51234/?code=abc&state=s-123", .otherRedirectURI),
            ("http://localhost:51234/other?code=abc&state=s-123", .otherRedirectURI),
            ("http://user@localhost:51234/?code=abc&state=s-123", .otherRedirectURI),
            ("http://localhost:51234/?state=s-123", .noResponse),
            ("http://localhost:51234/?code=abc&state=s-124", .stateMismatch),
            ("http://localhost:51234/?code=abc", .stateMismatch),
            ("http://localhost:51234/?code=abc&code=def&state=s-123", .repeatedParameter("code")),
            ("http://localhost:51234/?code=abc#state=s-123&state=s-123", .repeatedParameter("state")),
            ("http://localhost:51234/?code=" + String(repeating: "a", count: 20_000) + "&state=s-123", .tooLong),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text.prefix(80))") { try PastedRedirect.parse(text, redirectURI: redirect, state: state) }
        }
    }

    @Test func ladderChoosesByEnvironment() {
        typealias Ladder = MSALSignInLadder
        func step(_ variables: [String: String], terminal: Bool, _ request: Ladder.Request = .automatic) -> Ladder.Step {
            Ladder.step(for: request, in: .init(variables: variables, inputIsTerminal: terminal))
        }
        #expect(step(["DISPLAY": ":0"], terminal: true).method == .browser)
        #expect(step(["DISPLAY": ":0"], terminal: true).acceptsPastedRedirect)
        #expect(step(["WAYLAND_DISPLAY": "wayland-0"], terminal: false).method == .browser)
        #expect(step(["WSL_DISTRO_NAME": "Debian"], terminal: true).method == .browser)
        #expect(step(["BROWSER": "w3m"], terminal: false).method == .browser)
        let ssh = step(["SSH_CONNECTION": "1 2 3 4"], terminal: true)
        #expect(ssh.method == .printedURL && ssh.acceptsPastedRedirect && ssh.reason.contains("SSH"))
        let container = step([:], terminal: false)
        #expect(container.method == .deviceCode && container.reason.contains("no terminal"))
        #expect(step(["DISPLAY": ":0"], terminal: true, .noBrowser).method == .printedURL)
        #expect(step([:], terminal: false, .browser).method == .browser)
        #expect(step(["DISPLAY": ":0"], terminal: true, .deviceCode).method == .deviceCode)
        #expect(Ladder.step(for: .automatic, in: .init(variables: [:], inputIsTerminal: false, isMacOS: true)).method == .browser)
    }

    @Test func wslOpensWindowsBrowserWithTheURLAsOneArgument() {
        let url = URL(string: "https://login.example/authorize?a=1&b=2")!
        let commands = SystemBrowserOpener(environment: ["WSL_DISTRO_NAME": "Ubuntu", "PATH": "/usr/bin"]).commands(for: url)
        #expect(commands.first == ["wslview", url.absoluteString])
        #expect(commands.dropFirst().first == ["rundll32.exe", "url.dll,FileProtocolHandler", url.absoluteString])
        #expect(SystemBrowserOpener(environment: ["PATH": "/usr/bin"]).commands(for: url) == [["xdg-open", url.absoluteString]])
    }

    /// Lines given by the test, then the end of input (or a wait until cancelled).
    final class ScriptedLines: MSALPastedRedirectSource, @unchecked Sendable {
        let queue = LineQueue()
        /// Set once the authenticator reads the first line (the sign-in is presented).
        let reading = Flag()
        func nextLine() async throws -> String? {
            reading.set()
            return try await queue.next()
        }
    }

    @Test func pastedAddressWinsTheRaceAndClosesTheListener() async throws {
        let lines = ScriptedLines()
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: NoBrowser(), opensBrowser: false, pastedRedirects: lines,
                                                              timeout: .seconds(20), output: { _ in })
        let request = MSALWebAuthenticationRequest(redirectUri: "http://localhost", state: "st", correlationId: UUID(),
                                                   prefersEphemeralSession: false)
        let session = try await authenticator.prepare(request)
        let port = try #require(URLComponents(string: session.redirectUri)?.port)
        lines.queue.push("not a url")
        lines.queue.push("http://localhost:\(port)/?code=c1&state=other")
        lines.queue.push("http://localhost:\(port)/?code=c2&state=st")
        let response = try await session.present(URL(string: "https://login.example/authorize")!)
        #expect(response.parameters["code"] == "c2")
        // The listener is closed (asked of the session: a probe of the port could reach another test's listener that
        // took the freed port since).
        let listening = try #require(session as? any LoopbackBackedSession)
        #expect(!listening.isListening)
    }

    @Test func listenerWinsWhenNothingIsPasted() async throws {
        let lines = ScriptedLines()
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: NoBrowser(), opensBrowser: false, pastedRedirects: lines,
                                                              timeout: .seconds(20), output: { _ in })
        let request = MSALWebAuthenticationRequest(redirectUri: "http://127.0.0.1:0/cb", state: "st2", correlationId: UUID(),
                                                   prefersEphemeralSession: false)
        let session = try await authenticator.prepare(request)
        let target = try #require(URL(string: session.redirectUri + "?code=direct&state=st2"))
        async let response = session.present(URL(string: "https://login.example/authorize")!)
        try await eventually("the sign-in is presented") { lines.reading.isSet }
        _ = try? await MSALDefaultHTTPClient.shared.send(MSALHTTPRequest(method: "GET", url: target, timeout: 10))
        #expect(try await response.parameters["code"] == "direct")
        lines.queue.push("http://127.0.0.1/?code=x&state=st2")  // too late: no one reads it, nothing breaks
    }

    struct NoBrowser: BrowserOpener {
        func open(_ url: URL) async throws { Issue.record("no browser should open in --no-browser mode") }
    }
}
