package import Foundation
import MSALSupport

/// A parsed, size-bounded HTTP request as the emulator's handlers see it.
package struct EmulatorRequest: Sendable {
    package var method: String
    /// Percent-decoded, non-empty path segments.
    package var segments: [String]
    package var query: [String: String]
    package var form: [String: String]
    /// Every value of repeated form fields (consent checkboxes).
    package var formLists: [String: [String]]
    /// Header names in lower case.
    package var headers: [String: String]
    package var cookies: [String: String]
    /// `http` or `https`.
    package var scheme: String
    /// `host:port` as the client addressed us (sanitised).
    package var host: String
    /// The body as received (bounded).
    package var rawBody: Data = Data()

    package init(method: String, segments: [String], query: [String: String], form: [String: String],
                 formLists: [String: [String]], headers: [String: String], cookies: [String: String], scheme: String,
                 host: String) {
        self.method = method
        self.segments = segments
        self.query = query
        self.form = form
        self.formLists = formLists
        self.headers = headers
        self.cookies = cookies
        self.scheme = scheme
        self.host = host
    }

    var baseURL: String { "\(scheme)://\(host)" }

    /// A parameter from the form body, else from the query.
    func parameter(_ name: String) -> String? {
        if let value = form[name], !value.isEmpty { return value }
        if let value = query[name], !value.isEmpty { return value }
        return nil
    }

    /// The correlation id the client sent, or a new one.
    var correlationId: String {
        if let id = headers["client-request-id"], id.count <= 64, id.allSatisfy({ $0.isHexDigit || $0 == "-" }) { return id }
        return UUID().uuidString.lowercased()
    }

    static let maxFields = 200

    /// Parses `application/x-www-form-urlencoded` text (also used for query strings), as Entra ID reads requests:
    /// the first of repeated fields counts (`lists` keeps them all), a field with an empty or malformed name is
    /// ignored, a malformed value reads as empty, and only the first ``maxFields`` fields are read.
    package static func parseForm(_ text: Substring) -> (single: [String: String], lists: [String: [String]]) {
        let pairs = FormCoding.pairs(text, malformed: .skip, limit: maxFields) ?? []
        var lists: [String: [String]] = [:]
        for (name, value) in pairs { lists[name, default: []].append(value) }
        return (FormCoding.dictionary(pairs, duplicates: .firstWins) ?? [:], lists)
    }

    package static func parseCookies(_ header: String?) -> [String: String] {
        guard let header else { return [:] }
        var cookies: [String: String] = [:]
        for item in header.split(separator: ";").prefix(50) {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            cookies[parts[0].trimmingCharacters(in: .whitespaces)] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        return cookies
    }

    /// Keeps only a plausible `host[:port]`.
    package static func sanitizeHost(_ value: String?, fallback: String) -> String {
        guard let value, !value.isEmpty, value.count < 256,
              value.allSatisfy({ $0.isLetter || $0.isNumber || ".-:[]".contains($0) }), value.first != ":"
        else { return fallback }
        return value
    }
}

/// An answer from a handler.
package struct EmulatorResponse: Sendable {
    package var status: Int
    package var headers: [(String, String)]
    package var body: Data
    /// Close the connection instead of answering (fault injection).
    var dropConnection = false

    init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package static func json(_ object: [String: Any], status: Int = 200, headers: [(String, String)] = []) -> EmulatorResponse {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return EmulatorResponse(
            status: status,
            headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store, no-cache"), ("Pragma", "no-cache")] + headers,
            body: data
        )
    }

    static func html(_ text: String, status: Int = 200, headers: [(String, String)] = []) -> EmulatorResponse {
        EmulatorResponse(
            status: status,
            headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store, no-cache"), ("X-Frame-Options", "DENY")] + headers,
            body: Data(text.utf8)
        )
    }

    static func redirect(_ location: String, headers: [(String, String)] = []) -> EmulatorResponse {
        EmulatorResponse(status: 302, headers: [("Location", location), ("Cache-Control", "no-store, no-cache")] + headers)
    }

    static func notFound() -> EmulatorResponse {
        .json(["error": ["code": "NotFound", "message": "The emulator has no such endpoint."]], status: 404)
    }

    static func methodNotAllowed(_ allowed: String) -> EmulatorResponse {
        .json(["error": "invalid_request", "error_description": "AADSTS900561: The endpoint only accepts \(allowed) requests."],
              status: 405, headers: [("Allow", allowed)])
    }
}

/// Percent-encoding for query strings and form values.
enum URLText {
    /// Percent-encodes everything but the unreserved characters (RFC 3986 §2.3).
    static func encode(_ text: String) -> String { FormCoding.escape(text) }

    /// Encodes ordered pairs as `a=1&b=2`.
    static func query(_ pairs: [(String, String)]) -> String { FormCoding.encode(pairs) }

    /// HTML-escapes text for element content and attribute values.
    static func html(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }
}
