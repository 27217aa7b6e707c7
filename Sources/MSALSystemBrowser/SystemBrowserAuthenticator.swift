public import Foundation
public import MSALCore
public import MSALLoopback

/// Interactive sign-in in the system browser with a loopback redirect (RFC 8252), the default user agent
/// outside Apple platforms.
///
/// For each sign-in it starts a `LoopbackRedirectListener` (MSALLoopback) for the application's redirect URI — `http://localhost`
/// (any port: it binds an ephemeral one and sends `http://localhost:<port>`) or a configured
/// `http://127.0.0.1:PORT/path` (exactly that) — opens the authorization URL with its `BrowserOpener` and always
/// writes the URL to its output too, so the user can open it by hand. It returns the one response whose path and
/// `state` match, and closes the port.
///
/// ```swift
/// let webview = MSALWebviewParameters()
/// webview.webAuthenticator = MSALSystemBrowserWebAuthenticator(timeout: .seconds(120))
/// ```
///
/// Errors: ``MSALError/userCanceled`` (internal code ``MSALInternalError/internalErrorSessionCanceled``) on timeout
/// or task cancellation; ``MSALInternalError/internalErrorInteractiveSessionAlreadyRunning`` when this authenticator
/// already runs a sign-in; ``MSALInternalError/internalErrorInvalidRedirectURI`` for a redirect URI that is not an
/// `http` loopback URI.
public final class MSALSystemBrowserWebAuthenticator: MSALWebAuthenticator, Sendable {
    /// Writes the fallback message with the URL. The default writes to standard error.
    public typealias OutputSink = @Sendable (_ message: String) -> Void

    private let opener: any BrowserOpener
    private let opensBrowser: Bool
    private let pastedRedirects: (any MSALPastedRedirectSource)?
    private let timeout: Duration
    private let output: OutputSink
    private let running = LockedBox(false)

    /// Creates the authenticator.
    ///
    /// - Parameters:
    ///   - opener: starts the browser; by default `$BROWSER`, else `wslview` (or Windows' URL handler) under WSL,
    ///     else `xdg-open`.
    ///   - opensBrowser: false to only print the URL (for a browser on another machine); the listener still waits,
    ///     so a forwarded port (`ssh -L`, an editor's port forwarding) still completes the sign-in.
    ///   - pastedRedirects: where the user may paste the address the browser was redirected to (paste-back sign-in,
    ///     ``MSALStandardInputRedirectSource`` for a terminal); each pasted address is checked with
    ///     `PastedRedirect` (same redirect URI, same state) and the first valid one, pasted or received, ends the
    ///     sign-in. Nil: the listener only.
    ///   - timeout: how long to wait for the redirect (5 minutes by default).
    ///   - output: receives the "open this URL" message; standard error by default.
    public init(opener: any BrowserOpener = SystemBrowserOpener(), opensBrowser: Bool = true,
                pastedRedirects: (any MSALPastedRedirectSource)? = nil, timeout: Duration = .seconds(300),
                output: @escaping OutputSink = MSALSystemBrowserWebAuthenticator.standardError) {
        self.opener = opener
        self.opensBrowser = opensBrowser
        self.pastedRedirects = pastedRedirects
        self.timeout = timeout
        self.output = output
    }

    /// Writes `message` to standard error.
    public static let standardError: OutputSink = { message in
        FileHandle.standardError.write(Data(message.utf8))
    }

    /// Starts a listener for `request`'s redirect URI and returns the session that opens the browser.
    public func prepare(_ request: MSALWebAuthenticationRequest) async throws -> any MSALWebAuthenticationSession {
        let correlationId = request.correlationId
        let redirect = try LoopbackRedirectTarget(request.redirectUri, correlationId: correlationId)
        let started = running.withLock { isRunning -> Bool in
            if isRunning { return false }
            isRunning = true
            return true
        }
        guard started else {
            throw MSALErrorInfo.internal(.internalErrorInteractiveSessionAlreadyRunning,
                                         "This browser authenticator is already running a sign-in.",
                                         correlationId: correlationId)
        }
        let listener: LoopbackRedirectListener
        do {
            listener = try await LoopbackRedirectListener.start(LoopbackConfiguration(
                path: redirect.path, expectedState: request.state, port: redirect.port ?? 0,
                bindAddresses: redirect.bindAddresses, bindsEveryAddress: redirect.host == "localhost"))
        } catch {
            running.set(false)
            throw MSALErrorInfo.internal(.internalErrorUnexpected,
                                         "Could not listen for the redirect on the loopback interface: \(error)",
                                         correlationId: correlationId, underlyingError: error)
        }
        return SystemBrowserSession(authenticator: self, listener: listener,
                                    redirectUri: redirect.effectiveURI(port: listener.port), state: request.state,
                                    correlationId: correlationId)
    }

    /// Shows `url` and waits for the redirect on `listener`; closes the listener and ends the sign-in in any case.
    fileprivate func present(_ url: URL, listener: LoopbackRedirectListener, redirectUri: String, state: String,
                             correlationId: UUID) async throws -> MSALWebAuthenticationResponse {
        defer { running.set(false) }
        do {
            try Task.checkCancellation()
            output(opensBrowser ? "To sign in, open this URL in a browser (if one did not open by itself):\n\(url.absoluteString)\n"
                                : "To sign in, open this URL in a browser on any machine:\n\(url.absoluteString)\n")
            if pastedRedirects != nil {
                output("If the browser runs on another machine, it ends on an address starting with \(redirectUri) that "
                       + "may not load: copy that address from the browser's address bar, paste it here and press Enter.\n")
            }
            if opensBrowser { await open(url) }
            let parameters: [String: String]
            if let pastedRedirects {
                parameters = try await PasteBackRace(listener: listener, source: pastedRedirects, redirectUri: redirectUri,
                                                     state: state, timeout: timeout, output: output).run()
            } else {
                parameters = try await listener.waitForRedirect(timeout: timeout).parameters
            }
            return MSALWebAuthenticationResponse(redirectUri: redirectUri, parameters: parameters)
        } catch let error as LoopbackListenerError where error == .timedOut {
            await listener.close()
            throw MSALErrorInfo(.userCanceled, internalCode: .internalErrorSessionCanceled,
                                description: "No sign-in response arrived within \(timeout).", correlationId: correlationId)
        } catch is CancellationError {
            await listener.close()
            throw MSALErrorInfo.cancelled("The interactive sign-in", correlationId: correlationId)
        } catch let error as LoopbackListenerError where error == .closed {
            throw MSALErrorInfo(.userCanceled, internalCode: .internalErrorSessionCanceled,
                                description: "The sign-in listener was closed.", correlationId: correlationId)
        } catch {
            await listener.close()
            throw error
        }
    }

    /// Closes a prepared listener that will not be presented.
    fileprivate func abandon(_ listener: LoopbackRedirectListener) async {
        await listener.close()
        running.set(false)
    }

    /// Opens the end-session (sign-out) URL in the browser, and writes it to the output too.
    public func endSession(url: URL) async throws {
        output("To finish signing out, open this URL in a browser (if one did not open by itself):\n\(url.absoluteString)\n")
        await open(url)
    }

    /// Opens `url`; a browser that cannot be started is reported on the output and the URL stays usable by hand.
    private func open(_ url: URL) async {
        do {
            try await opener.open(url)
        } catch {
            output("Could not start a browser (\(error)); open the URL above by hand.\n")
        }
    }
}

/// A loopback redirect URI taken apart: where to listen and what to send as `redirect_uri`.
struct LoopbackRedirectTarget: Sendable {
    var scheme: String
    var host: String
    var port: Int?
    var path: String
    var original: String

    init(_ uri: String, correlationId: UUID?) throws {
        guard let components = URLComponents(string: uri), components.scheme?.lowercased() == "http",
              let rawHost = components.host, !rawHost.isEmpty else {
            throw MSALErrorInfo.internal(
                .internalErrorInvalidRedirectURI,
                "The system browser needs an http loopback redirect URI (http://localhost or http://127.0.0.1:PORT/path), not \"\(uri)\".",
                correlationId: correlationId)
        }
        let host = rawHost.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard ["localhost", "127.0.0.1", "::1"].contains(host) else {
            throw MSALErrorInfo.internal(
                .internalErrorInvalidRedirectURI,
                "The redirect URI \"\(uri)\" does not name a loopback host (localhost, 127.0.0.1 or [::1]).",
                correlationId: correlationId)
        }
        guard components.user == nil, components.password == nil else {
            throw MSALErrorInfo.internal(.internalErrorInvalidRedirectURI,
                                         "A loopback redirect URI must not carry a user name or password.",
                                         correlationId: correlationId)
        }
        guard components.query == nil, components.fragment == nil else {
            throw MSALErrorInfo.internal(.internalErrorInvalidRedirectURI,
                                         "A loopback redirect URI must not have a query or fragment.",
                                         correlationId: correlationId)
        }
        self.scheme = "http"
        self.host = host
        // Port 0 means "any port", as no port does: the listener picks one and it is sent to the browser.
        self.port = components.port.flatMap { $0 == 0 ? nil : $0 }
        self.path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.original = uri
    }

    /// The addresses to bind: the literal the URI names, or for `localhost` IPv4 then IPv6.
    var bindAddresses: [String] {
        switch host {
        case "127.0.0.1": return ["127.0.0.1"]
        case "::1": return ["::1"]
        default: return ["127.0.0.1", "::1"]
        }
    }

    /// The redirect URI to send: unchanged when it names a port, else with the bound port added.
    func effectiveURI(port boundPort: Int) -> String {
        if port != nil { return original }
        // Rebuilt from the parts (without an explicit `:0`), with the bound port.
        var components = URLComponents(string: original) ?? URLComponents()
        components.port = boundPort
        return components.string ?? original
    }
}

/// A prepared browser sign-in: the listener is bound and its redirect URI known.
/// A prepared sign-in whose loopback listener can be asked whether it still listens (for tests of when it closes;
/// a probe of its port could reach another listener that took the port since).
package protocol LoopbackBackedSession: Sendable {
    var isListening: Bool { get }
}

private final class SystemBrowserSession: MSALWebAuthenticationSession, LoopbackBackedSession, Sendable {
    var isListening: Bool { listener.isListening }

    let authenticator: MSALSystemBrowserWebAuthenticator
    let listener: LoopbackRedirectListener
    let redirectUri: String
    let state: String
    let correlationId: UUID

    init(authenticator: MSALSystemBrowserWebAuthenticator, listener: LoopbackRedirectListener, redirectUri: String,
         state: String, correlationId: UUID) {
        self.authenticator = authenticator
        self.listener = listener
        self.redirectUri = redirectUri
        self.state = state
        self.correlationId = correlationId
    }

    func present(_ authorizationURL: URL) async throws -> MSALWebAuthenticationResponse {
        try await authenticator.present(authorizationURL, listener: listener, redirectUri: redirectUri, state: state,
                                        correlationId: correlationId)
    }

    func close() async {
        await authenticator.abandon(listener)
    }
}
