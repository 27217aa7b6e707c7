import Foundation
import MSALSupport

/// Why a pasted redirect address was refused (see ``PastedRedirect/parse(_:redirectURI:state:)``).
public enum PastedRedirectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing but blanks was pasted.
    case empty
    /// Longer than ``PastedRedirect/maximumLength`` bytes.
    case tooLong
    /// Not an absolute `http` URL.
    case notAURL
    /// The scheme, host, port or path differs from the redirect URI of this sign-in.
    case otherRedirectURI
    /// Neither a `code` nor an `error` parameter.
    case noResponse
    /// A parameter appears twice.
    case repeatedParameter(String)
    /// The `state` parameter is missing or not this sign-in's.
    case stateMismatch

    public var description: String {
        switch self {
        case .empty: return "nothing was pasted"
        case .tooLong: return "the pasted text is longer than \(PastedRedirect.maximumLength) bytes"
        case .notAURL: return "the pasted text is not an http address"
        case .otherRedirectURI: return "the address is not this sign-in's redirect address"
        case .noResponse: return "the address carries neither a code nor an error"
        case .repeatedParameter(let name): return "the address has the parameter \"\(name)\" twice"
        case .stateMismatch: return "the address belongs to another sign-in (its state differs)"
        }
    }
}

/// The address a browser was redirected to at the end of a sign-in, pasted back by the user (for machines where
/// the browser runs elsewhere: over SSH, in a container, in a VM), checked before any of it is used.
///
/// The address must be an absolute `http` URL with exactly the scheme, host, port and path of the redirect URI the
/// authorization request named, carry `code` or `error`, name no parameter twice (query and fragment together), and
/// carry this sign-in's `state`. Surrounding blanks and one pair of quotes or angle brackets (as terminals and chat
/// programs add) are ignored.
public enum PastedRedirect {
    /// The longest text accepted, in bytes (an Entra ID redirect is a few kilobytes at most).
    public static let maximumLength = 16 * 1024

    /// The response parameters of `text`, when it is the redirect of the sign-in with `redirectURI` and `state`.
    public static func parse(_ text: String, redirectURI: String, state: String) throws(PastedRedirectError) -> [String: String] {
        guard text.utf8.count <= maximumLength else { throw .tooLong }
        let trimmed = unwrapped(text.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !trimmed.isEmpty else { throw .empty }
        guard let pasted = URLComponents(string: trimmed), let scheme = pasted.scheme?.lowercased(),
              scheme == "http", let host = pasted.host, !host.isEmpty else { throw .notAURL }
        guard let expected = URLComponents(string: redirectURI), sameTarget(pasted, expected) else {
            throw .otherRedirectURI
        }
        var parameters: [String: String] = [:]
        // Form decoding as the listener's; names are checked for repeats here, to say which one.
        let pairs = [pasted.percentEncodedQuery, pasted.percentEncodedFragment].flatMap { part in
            FormCoding.pairs(part ?? "", malformed: .keepAsSent) ?? []
        }
        for (name, value) in pairs {
            guard parameters[name] == nil else { throw .repeatedParameter(name) }
            parameters[name] = value
        }
        guard parameters["code"] != nil || parameters["error"] != nil else { throw .noResponse }
        guard let pastedState = parameters["state"], ConstantTime.equals(pastedState, state) else { throw .stateMismatch }
        return parameters
    }

    /// `text` without one pair of surrounding quotes or angle brackets.
    static func unwrapped(_ text: String) -> String {
        for (open, close) in [("\"", "\""), ("'", "'"), ("<", ">")] where text.count >= 2
            && text.hasPrefix(open) && text.hasSuffix(close) {
            return String(text.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
        }
        return text
    }

    /// Same scheme, host (case-insensitive), port (80 when none) and path (`/` when empty).
    static func sameTarget(_ pasted: URLComponents, _ expected: URLComponents) -> Bool {
        guard pasted.user == nil, pasted.password == nil else { return false }
        func host(_ components: URLComponents) -> String {
            (components.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        }
        func path(_ components: URLComponents) -> String {
            components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        }
        return pasted.scheme?.lowercased() == expected.scheme?.lowercased() && host(pasted) == host(expected)
            && (pasted.port ?? 80) == (expected.port ?? 80) && path(pasted) == path(expected)
    }
}
