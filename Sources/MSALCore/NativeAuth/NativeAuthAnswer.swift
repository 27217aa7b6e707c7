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
    /// A new password was submitted (`resetpassword/v1.0/submit`): poll for completion after `pollInterval` seconds.
    case passwordSubmitted(token: String, pollInterval: Int)
    /// How a password reset stands (`poll_completion`): `succeeded` carries the token to sign in with.
    case resetStatus(String, token: String?)
    /// The user's strong authentication methods (`introspect`, `register/v1.0/introspect`).
    case methods(token: String, [NativeAuthMethod])
    /// The contact being registered is already verified (`register/v1.0/challenge` answered `preverified`).
    case preverified(token: String)
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
        if let status = string("status") {
            return .resetStatus(String(status.lowercased().prefix(32)), token: string("continuation_token"))
        }
        if let interval = object["poll_interval"]?.doubleValue, let token = string("continuation_token") {
            guard interval.isFinite, interval >= 0, interval <= 300 else { return .malformed("A poll interval out of range.") }
            return .passwordSubmitted(token: token, pollInterval: Int(interval))
        }
        if case .array(let entries)? = object["methods"] {
            guard let token = string("continuation_token") else { return .malformed("A methods answer without a continuation token.") }
            let methods = entries.prefix(16).compactMap(NativeAuthMethod.init)
            guard !methods.isEmpty else { return .malformed("A methods answer without a usable method.") }
            return .methods(token: token, methods)
        }
        switch string("challenge_type")?.lowercased() {
        case "redirect"?:
            return .browserRequired(reason: string("redirect_reason"))
        case "oob"?:
            guard let token = string("continuation_token") else { return .malformed("An oob challenge without a continuation token.") }
            guard let length = object["code_length"]?.doubleValue, length.isFinite, length >= 1, length <= 64,
                  length == length.rounded() else {
                return .malformed("An oob challenge without a code length.")
            }
            return .codeSent(token: token, sentTo: string("challenge_target_label") ?? string("challenge_target") ?? "",
                             channel: string("challenge_channel") ?? "email", codeLength: Int(length))
        case "preverified"?:
            guard let token = string("continuation_token") else { return .malformed("A preverified answer without a continuation token.") }
            return .preverified(token: token)
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

/// What a service error tells the app beyond its kind: its AADSTS numbers (`error_codes`) and its `error_uri`, both
/// handed to the ``MSALNativeAuthError``.
package struct NativeServiceErrorDetails: Sendable, Equatable {
    package var codes: [Int] = []
    package var uri: String?

    package init(codes: [Int] = [], uri: String? = nil) {
        self.codes = codes
        self.uri = uri
    }
}

/// An OAuth error a native-authentication endpoint answered.
package struct NativeAuthServerError: Error, Sendable, Equatable {
    /// The error codes and URI the app's error carries.
    package var details: NativeServiceErrorDetails { NativeServiceErrorDetails(codes: errorCodes, uri: errorURI) }

    package var error: String
    package var suberror: String?
    package var description: String?
    package var errorCodes: [Int]
    package var continuationToken: String?
    package var errorURI: String?
    /// The attributes sign-up still needs (`attributes_required`).
    package var requiredAttributes: [NativeAuthAttribute] = []
    /// The names of the attributes that failed validation (`attribute_validation_failed`).
    package var invalidAttributes: [String] = []

    package init(error: String, suberror: String? = nil, description: String? = nil, errorCodes: [Int] = [],
                 continuationToken: String? = nil, errorURI: String? = nil, requiredAttributes: [NativeAuthAttribute] = [],
                 invalidAttributes: [String] = []) {
        self.error = error
        self.suberror = suberror
        self.description = description
        self.errorCodes = errorCodes
        self.continuationToken = continuationToken
        self.errorURI = errorURI
        self.requiredAttributes = requiredAttributes
        self.invalidAttributes = invalidAttributes
    }

    /// Whether the error is one of the password policy's (`invalid_grant` with a password suberror).
    package var isPasswordPolicy: Bool {
        error == "invalid_grant" && (suberror?.hasPrefix("password_") ?? false)
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
        func named(_ entry: JSONValue) -> [String: JSONValue]? {
            guard case .object(let fields) = entry, case .string(let name)? = fields["name"], !name.isEmpty, name.utf8.count <= 256 else {
                return nil
            }
            return fields
        }
        var required: [NativeAuthAttribute] = []
        if case .array(let entries)? = object["required_attributes"] {
            for fields in entries.prefix(64).compactMap(named) {
                var regex: String?
                if case .object(let options)? = fields["options"], case .string(let pattern)? = options["regex"] {
                    regex = String(pattern.prefix(1024))
                }
                required.append(NativeAuthAttribute(name: fields["name"]?.stringValue ?? "", type: String((fields["type"]?.stringValue ?? "string").prefix(64)),
                                                    required: fields["required"] == .bool(true), regex: regex))
            }
        }
        var invalid: [String] = []
        if case .array(let entries)? = object["invalid_attributes"] {
            invalid = entries.prefix(64).compactMap(named).compactMap { $0["name"]?.stringValue }
        }
        self.init(error: String(error.prefix(128)), suberror: string("suberror").map { String($0.prefix(128)) },
                  description: string("error_description"), errorCodes: codes,
                  continuationToken: string("continuation_token"), errorURI: string("error_uri"),
                  requiredAttributes: required, invalidAttributes: invalid)
    }
}

/// An attribute sign-up asks for (`required_attributes`).
package struct NativeAuthAttribute: Sendable, Equatable {
    package var name: String
    package var type: String
    package var required: Bool
    package var regex: String?

    package init(name: String, type: String, required: Bool, regex: String?) {
        self.name = name
        self.type = type
        self.required = required
        self.regex = regex
    }
}

/// A strong authentication method of the user (`introspect`'s `methods`).
package struct NativeAuthMethod: Sendable, Equatable {
    package var id: String
    package var challengeType: String
    package var channel: String
    package var loginHint: String?

    package init(id: String, challengeType: String, channel: String, loginHint: String?) {
        self.id = id
        self.challengeType = challengeType
        self.channel = channel
        self.loginHint = loginHint
    }

    /// A method of the answer; nil without an id.
    init?(_ entry: JSONValue) {
        guard case .object(let fields) = entry else { return nil }
        func string(_ name: String, _ limit: Int) -> String? {
            guard case .string(let value)? = fields[name], !value.isEmpty, value.utf8.count <= limit else { return nil }
            return value
        }
        guard let id = string("id", 256) else { return nil }
        self.init(id: id, challengeType: string("challenge_type", 64) ?? "oob", channel: string("challenge_channel", 64) ?? "email",
                  loginHint: string("login_hint", 512))
    }
}
