import Foundation

/// Chooses how an interactive sign-in reaches the user on the machine at hand: a browser where one can show, the
/// URL printed and the redirect pasted back where none can (SSH, containers, servers), the device code flow where
/// there is not even a terminal to paste into. Pure: the caller passes the environment, so the choice is testable
/// and the same in every tool built on MSAL.
///
/// ```swift
/// let step = MSALSignInLadder.step(for: .automatic, in: .current())
/// switch step.method {
/// case .browser, .printedURL:
///     webview.webAuthenticator = MSALSystemBrowserWebAuthenticator(
///         opensBrowser: step.method == .browser,
///         pastedRedirects: step.acceptsPastedRedirect ? MSALStandardInputRedirectSource() : nil)
/// case .deviceCode:
///     // acquireTokenWithDeviceCode
/// }
/// ```
public enum MSALSignInLadder {
    /// What the user asked for.
    public enum Request: Sendable, Equatable {
        /// Let the ladder choose.
        case automatic
        /// Open a browser on this machine.
        case browser
        /// Print the URL only, and accept the redirect address pasted back (or through a forwarded port).
        case noBrowser
        /// The device code flow.
        case deviceCode
    }

    /// How the sign-in will reach the user.
    public enum Method: Sendable, Equatable {
        /// Open a browser on this machine (the URL is printed too).
        case browser
        /// Print the URL for a browser anywhere; the loopback listener waits and a pasted redirect is accepted.
        case printedURL
        /// The device code flow.
        case deviceCode
    }

    /// The facts the choice depends on.
    public struct Environment: Sendable, Equatable {
        /// The process environment (`DISPLAY`, `WAYLAND_DISPLAY`, `BROWSER`, `WSL_DISTRO_NAME`, `SSH_CONNECTION`...).
        public var variables: [String: String]
        /// Whether standard input is a terminal the user can paste into.
        public var inputIsTerminal: Bool
        /// Whether this is macOS (a browser can always show).
        public var isMacOS: Bool

        /// Creates the facts.
        public init(variables: [String: String], inputIsTerminal: Bool, isMacOS: Bool = false) {
            self.variables = variables
            self.inputIsTerminal = inputIsTerminal
            self.isMacOS = isMacOS
        }

        /// This process's facts.
        public static func current() -> Environment {
            #if os(macOS)
            let macOS = true
            #else
            let macOS = false
            #endif
            return Environment(variables: ProcessInfo.processInfo.environment, inputIsTerminal: isatty(0) == 1,
                               isMacOS: macOS)
        }

        func has(_ name: String) -> Bool { !(variables[name] ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// The chosen method, with why, in words for the user.
    public struct Step: Sendable, Equatable {
        /// How the sign-in will reach the user.
        public var method: Method
        /// Whether a redirect address pasted on standard input is accepted (when it is a terminal, or when the
        /// user asked for `noBrowser`).
        public var acceptsPastedRedirect: Bool
        /// Why this method, for a message.
        public var reason: String
    }

    /// The step for `request` in `environment`.
    public static func step(for request: Request, in environment: Environment) -> Step {
        let paste = environment.inputIsTerminal
        switch request {
        case .browser:
            return Step(method: .browser, acceptsPastedRedirect: paste, reason: "a browser was asked for")
        case .noBrowser:
            return Step(method: .printedURL, acceptsPastedRedirect: true, reason: "no browser was asked for")
        case .deviceCode:
            return Step(method: .deviceCode, acceptsPastedRedirect: false, reason: "the device code flow was asked for")
        case .automatic:
            break
        }
        if environment.isMacOS {
            return Step(method: .browser, acceptsPastedRedirect: paste, reason: "macOS")
        }
        if environment.has("WSL_DISTRO_NAME") || environment.has("WSL_INTEROP") {
            return Step(method: .browser, acceptsPastedRedirect: paste, reason: "Windows Subsystem for Linux: Windows' browser")
        }
        for name in ["BROWSER", "DISPLAY", "WAYLAND_DISPLAY"] where environment.has(name) {
            return Step(method: .browser, acceptsPastedRedirect: paste, reason: "\(name) is set")
        }
        let remote = environment.has("SSH_CONNECTION") || environment.has("SSH_TTY") ? "an SSH session without a display"
            : "no display (DISPLAY and WAYLAND_DISPLAY are unset)"
        if paste {
            return Step(method: .printedURL, acceptsPastedRedirect: true,
                        reason: "\(remote): open the URL in a browser on any machine and paste back where it ends")
        }
        return Step(method: .deviceCode, acceptsPastedRedirect: false,
                    reason: "\(remote) and no terminal to paste into: using the device code flow")
    }
}
