import Foundation
import MSALLoopback

/// One paste-back sign-in's wait: the loopback listener and the pasted lines race, and the first redirect of this
/// sign-in ends both. A pasted line that is not this sign-in's redirect is refused with a message and the wait goes
/// on; the end of pasted input leaves the listener alone. The listener's timeout bounds the whole wait.
struct PasteBackRace: Sendable {
    let listener: LoopbackRedirectListener
    let source: any MSALPastedRedirectSource
    let redirectUri: String
    let state: String
    let timeout: Duration
    let output: MSALSystemBrowserWebAuthenticator.OutputSink

    /// The response parameters of the first redirect, received or pasted.
    func run() async throws -> [String: String] {
        try await withThrowingTaskGroup(of: [String: String]?.self) { group in
            let listener = listener
            let timeout = timeout
            group.addTask { try await listener.waitForRedirect(timeout: timeout).parameters }
            group.addTask { try await readPasted() }
            while let outcome = try await group.next() {
                guard let parameters = outcome else { continue }  // pasted input ended: the listener goes on
                group.cancelAll()
                await listener.close()
                return parameters
            }
            throw CancellationError()
        }
    }

    /// The parameters of the first pasted line that is this sign-in's redirect; nil at the end of input.
    func readPasted() async throws -> [String: String]? {
        while let line = try await source.nextLine() {
            try Task.checkCancellation()
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            do {
                return try PastedRedirect.parse(line, redirectURI: redirectUri, state: state)
            } catch {
                output("That address was not accepted: \(error). Paste the whole address the browser was sent to; it "
                       + "starts with \(redirectUri)\n")
            }
        }
        return nil
    }
}
