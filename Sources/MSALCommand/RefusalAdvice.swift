import MSAL

/// The way a token was being obtained when Entra refused it: the advice that works depends on it.
enum SignInFlow: String, CaseIterable, Sendable {
    /// A cached account's silent token (`msal token`, `msal graph`, the credential chain).
    case silent
    /// A browser on this machine, with the loopback redirect.
    case browser
    /// A browser elsewhere, the address it ends on pasted back (`--no-browser`).
    case pasteBack
    /// The device code flow.
    case deviceCode
    /// The device's identity broker (`--broker`).
    case broker
}

/// One mapping from every refusal Entra gives for a policy (Conditional Access, multi-factor authentication, consent)
/// to the one next step that works in the flow that met it, and the exit code `msal --help` documents for it: 3 when
/// the next step is to sign in (again, or another way), 1 when signing in cannot help (the device or an administrator
/// must change something).
enum RefusalAdvice {
    /// What a refusal code means, in a few words.
    static let reasons: [String: String] = [
        "53000": "the device must be compliant with the organization's policy",
        "53001": "the device must be registered or joined with Microsoft Entra",
        "53002": "the policy allows only approved client apps",
        "53003": "a Conditional Access policy blocks this sign-in",
        "53004": "security info must be registered first, and a policy blocks that here",
        "530084": "token protection requires a token bound to a registered device",
        "50076": "multi-factor authentication is required",
        "50079": "multi-factor authentication registration is required",
        "65001": "the app has no consent for these scopes",
    ]

    /// The codes, most specific first (when an answer carries several, the first one found decides).
    static let precedence = ["530084", "53000", "53001", "53002", "53004", "53003", "50079", "50076", "65001"]

    /// The advice for `codes` met in `flow`, `login` being the command that signs in with the same settings; nil
    /// when no code is one of ``reasons``.
    static func advice(codes: [String], flow: SignInFlow, login: String) -> (text: String, exitCode: Int32)? {
        guard let code = precedence.first(where: codes.contains), let reason = reasons[code] else { return nil }
        let lead = "Entra refused the token (AADSTS\(code): \(reason))."
        let signIn = CLIExit.interactionRequired
        let admin = CLIExit.failure
        switch (code, flow) {
        case ("53000", .broker), ("53001", .broker), ("530084", .broker):
            return (lead + " The broker signed in, but this device does not meet the policy: make it compliant (Intune "
                    + "Company Portal or your administrator), then run `\(login) --broker`.", admin)
        case ("53000", _), ("53001", _), ("530084", _):
            return (lead + " Only a sign-in through the device's identity broker passes it: run `\(login) --broker` on a "
                    + "device registered with Microsoft Entra (Intune enrollment installs the Microsoft identity broker).", signIn)
        case ("53003", .deviceCode):
            return (lead + " The policy blocks the device code flow: sign in with a browser, `\(login)` (with no "
                    + "display, `\(login) --no-browser` and paste back the address the browser ends on).", signIn)
        case ("53003", .silent):
            return (lead + " Sign in again: `\(login)`.", signIn)
        case ("53002", _), ("53003", _), ("53004", _):
            return (lead + " Signing in another way will not pass it: ask your administrator, giving the correlation id.", admin)
        case ("65001", .silent):
            return (lead + " Sign in to consent: `\(login)`.", signIn)
        case ("65001", _):
            return (lead + " You cannot consent yourself: an administrator must grant the app these permissions (or ask "
                    + "for scopes the app already has with --scopes).", admin)
        default:   // 50076, 50079: an interactive sign-in asks for it
            return (lead + " Sign in interactively and complete it: `\(login)`.", signIn)
        }
    }
}
