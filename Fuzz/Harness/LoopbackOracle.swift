public import Foundation
public import MSALLoopback

/// What must hold for any request the loopback redirect listener receives, whatever the bytes: it answers with a
/// small fixed page that never echoes the request, and it ends the sign-in only with a `GET` or form `POST` to the
/// redirect path whose `state` is the expected one. Used by the fuzz target (in-memory channel) and by the test
/// suite (a real listener on 127.0.0.1).
public enum LoopbackOracle {
    /// The redirect path and state the listener is configured with.
    public static let path = "/callback"
    public static let state = "fuzz-state"

    public static var configuration: LoopbackConfiguration {
        LoopbackConfiguration(path: path, expectedState: state, bindAddresses: ["127.0.0.1"], maxRequestBytes: 16 * 1024,
                              requestTimeout: .seconds(2))
    }

    /// Checks the listener's answer (`answer`: the bytes it sent back) and outcome (`redirect`: what ended the wait).
    public static func check(request: Data, answer: Data, redirect: LoopbackRedirect?) throws {
        let text = String(decoding: answer, as: UTF8.self)
        if !answer.isEmpty {
            try fuzzCheck(text.hasPrefix("HTTP/1.1 "), "the listener answered something that is not HTTP/1.1")
            try fuzzCheck(!text.contains(state), "the listener's answer echoes the request's state")
            // (The pages never contain the text of a status line, and one answer's body is not followed by CRLF.)
            let statusLines = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(while: { $0 != "\r" }) }
            try fuzzCheck(statusLines.count <= 1, "the listener answered more than once: \(statusLines)")
        }
        guard let redirect else { return }
        try fuzzCheck(redirect.parameters["state"] == state, "the listener accepted a redirect without the expected state")
        try fuzzCheck(redirect.method == "GET" || redirect.method == "POST", "the listener accepted a \(redirect.method)")
        try fuzzCheck(text.hasPrefix("HTTP/1.1 200"), "the listener accepted a redirect but did not answer 200")
        try fuzzCheck(request.range(of: Data(path.utf8)) != nil, "the listener accepted a request without the redirect path")
    }
}
