package import Foundation

/// What a native-authentication endpoint answered, read from outside input: bounded, typed checks, every field
/// optional on the wire; a missing field a step needs makes the answer `malformed`. Fuzzed (`native-auth`).
package enum NativeAuthAnswer: Sendable, Equatable {
    /// The next step may go on with this continuation token (`initiate`).
    case continuation(token: String)
    /// A one-time passcode was sent (`challenge` answered `oob`).
    case codeSent(token: String, sentTo: String, channel: String, codeLength: Int)
    /// The user signs in with a password (`challenge` answered `password`).
    case passwordRequired(token: String)
    /// The app must sign the user in in the browser (`challenge_type: redirect`, on any endpoint).
    case browserRequired(reason: String?)
    /// An OAuth error answer.
    case error(NativeAuthServerError)
    /// An answer MSAL cannot use (not JSON, a missing field, an unknown challenge type).
    case malformed(String)

    /// The largest answer read.
    package static let maximumSize = 1 << 20

    /// The answer of `initiate` or `challenge` (`status` and body).
    package static func parse(status: Int, body: Data) -> NativeAuthAnswer {
        guard body.count <= maximumSize, let object = JSONValue.parseObject(body) else {
            return .malformed("The answer is not a JSON object.")
        }
        func string(_ name: String) -> String? {
            guard case .string(let value)? = object[name], !value.isEmpty, value.utf8.count <= 16_384 else { return nil }
            return value
        }
        if let error = string("error") { return .error(NativeAuthServerError(object, error: error)) }
        guard (200..<300).contains(status) else { return .malformed("HTTP \(status) without an OAuth error.") }
        switch string("challenge_type")?.lowercased() {
        case "redirect"?:
            return .browserRequired(reason: string("redirect_reason"))
        case "oob"?:
            guard let token = string("continuation_token") else { return .malformed("An oob challenge without a continuation token.") }
            guard let length = object["code_length"]?.doubleValue, length.isFinite, length >= 1, length <= 64,
                  length == length.rounded() else {
                return .malformed("An oob challenge without a code length.")
            }
            return .codeSent(token: token, sentTo: string("challenge_target_label") ?? "",
                             channel: string("challenge_channel") ?? "email", codeLength: Int(length))
        case "password"?:
            guard let token = string("continuation_token") else { return .malformed("A password challenge without a continuation token.") }
            return .passwordRequired(token: token)
        case nil:
            guard let token = string("continuation_token") else { return .malformed("An answer without a continuation token.") }
            return .continuation(token: token)
        case let other?:
            return .malformed("An unknown challenge type '\(other.prefix(32))'.")
        }
    }
}

/// An OAuth error a native-authentication endpoint answered.
package struct NativeAuthServerError: Error, Sendable, Equatable {
    package var error: String
    package var suberror: String?
    package var description: String?
    package var errorCodes: [Int]
    package var continuationToken: String?
    package var errorURI: String?

    package init(error: String, suberror: String? = nil, description: String? = nil, errorCodes: [Int] = [],
                 continuationToken: String? = nil, errorURI: String? = nil) {
        self.error = error
        self.suberror = suberror
        self.description = description
        self.errorCodes = errorCodes
        self.continuationToken = continuationToken
        self.errorURI = errorURI
    }

    init(_ object: [String: JSONValue], error: String) {
        func string(_ name: String) -> String? {
            guard case .string(let value)? = object[name], !value.isEmpty else { return nil }
            return String(value.prefix(4096))
        }
        var codes: [Int] = []
        if case .array(let values)? = object["error_codes"] {
            for value in values.prefix(16) {
                if let number = value.doubleValue, number.isFinite, abs(number) < 1e9 { codes.append(Int(number)) }
            }
        }
        self.init(error: String(error.prefix(128)), suberror: string("suberror").map { String($0.prefix(128)) },
                  description: string("error_description"), errorCodes: codes,
                  continuationToken: string("continuation_token"), errorURI: string("error_uri"))
    }
}
