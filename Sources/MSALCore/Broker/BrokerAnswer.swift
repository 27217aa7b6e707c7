package import Foundation

/// An account as the broker names it (msalruntime's `Account` object).
package struct BrokerAccount: Sendable, Equatable {
    package var homeAccountId: String
    package var environment: String
    package var realm: String
    package var localAccountId: String
    package var username: String
    package var name: String?
    package var givenName: String?
    package var familyName: String?
    /// base64url of `{"uid": ..., "utid": ...}`.
    package var clientInfo: String?

    package init(homeAccountId: String, environment: String, realm: String, localAccountId: String, username: String,
                 name: String? = nil, givenName: String? = nil, familyName: String? = nil, clientInfo: String? = nil) {
        self.homeAccountId = homeAccountId
        self.environment = environment
        self.realm = realm
        self.localAccountId = localAccountId
        self.username = username
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.clientInfo = clientInfo
    }

    var json: [String: Any] {
        var object: [String: Any] = ["homeAccountId": homeAccountId, "environment": environment, "realm": realm,
                                     "localAccountId": localAccountId, "username": username]
        object["name"] = name
        object["givenName"] = givenName
        object["familyName"] = familyName
        object["clientInfo"] = clientInfo
        return object
    }

    /// Reads an account object; nil when a field every account has is missing or not a string, or too long.
    static func read(_ value: JSONValue?) -> BrokerAccount? {
        guard let object = value?.objectValue else { return nil }
        func text(_ key: String) -> String? {
            guard let string = object[key]?.stringValue, string.utf8.count <= BrokerAnswer.maximumFieldLength else { return nil }
            return string
        }
        guard let home = text("homeAccountId"), !home.isEmpty, let username = text("username"), !username.isEmpty else {
            return nil
        }
        return BrokerAccount(homeAccountId: home, environment: text("environment") ?? "", realm: text("realm") ?? "",
                             localAccountId: text("localAccountId") ?? "", username: username, name: text("name"),
                             givenName: text("givenName"), familyName: text("familyName"),
                             clientInfo: text("clientInfo"))
    }
}

/// A token the broker issued (msalruntime's `brokerTokenResponse`).
package struct BrokerTokenResponse: Sendable, Equatable {
    package var account: BrokerAccount
    package var accessToken: String
    /// 0 bearer, 1 proof of possession.
    package var accessTokenType: Int
    package var expiresOn: Date
    package var extendedExpiresOn: Date?
    /// The raw id token (a JWT).
    package var idToken: String
    package var clientInfo: String?
    package var grantedScopes: [String]
    /// A proof-of-possession answer's signed request, made by the broker with its key, and that key's thumbprint.
    package var signedHttpRequest: String? = nil
    package var popKeyThumbprint: String? = nil
}

/// Reads the broker's answers. Every answer is outside input — any process can take the broker's name on the
/// session bus first — so sizes are bounded, every field is checked, every failure is a typed error
/// (``MSALErrorInfo``), and a token's account must be the one that was asked for.
package enum BrokerAnswer {
    /// The largest answer read (a token answer is a few kilobytes).
    package static let maximumSize = 1 << 20
    /// The longest string field taken from an answer.
    static let maximumFieldLength = 64 << 10

    /// The accounts of a `getAccounts` answer (an account without the fields every account has is left out).
    package static func accounts(_ data: Data, correlationId: UUID?) throws -> [BrokerAccount] {
        let object = try root(data, correlationId: correlationId)
        if let error = object["error"] { throw failure(error, correlationId: correlationId) }
        guard let list = object["accounts"]?.arrayValue else {
            throw MSALErrorInfo.invalidResponse("The broker's account list has no accounts array.", correlationId: correlationId)
        }
        return list.prefix(1000).compactMap(BrokerAccount.read)
    }

    /// The token of an `acquireTokenSilently` or `acquireTokenInteractively` answer. With `expected`, the account
    /// the broker answers for must be that one (same home account id).
    package static func token(_ data: Data, expected: BrokerAccount?, correlationId: UUID?) throws -> BrokerTokenResponse {
        let object = try root(data, correlationId: correlationId)
        if let error = object["error"] { throw failure(error, correlationId: correlationId) }
        guard let response = object["brokerTokenResponse"]?.objectValue else {
            throw MSALErrorInfo.invalidResponse("The broker's answer has no brokerTokenResponse.", correlationId: correlationId)
        }
        if let error = response["error"] { throw failure(error, correlationId: correlationId) }
        func text(_ key: String) -> String? {
            guard let string = response[key]?.stringValue, !string.isEmpty,
                  string.utf8.count <= maximumFieldLength else { return nil }
            return string
        }
        guard let account = BrokerAccount.read(response["account"]) else {
            throw MSALErrorInfo.invalidResponse("The broker's token answer names no usable account.", correlationId: correlationId)
        }
        if let expected, expected.homeAccountId.lowercased() != account.homeAccountId.lowercased() {
            throw MSALErrorInfo.internal(.internalErrorMismatchedUser,
                                         "The broker answered for another account than the one asked for.",
                                         correlationId: correlationId)
        }
        guard let accessToken = text("accessToken"), let idToken = text("idToken") else {
            throw MSALErrorInfo.invalidResponse("The broker's token answer lacks the access token or the id token.",
                                                correlationId: correlationId)
        }
        guard let expiresOn = milliseconds(response["expiresOn"]) else {
            throw MSALErrorInfo.invalidResponse("The broker's token answer has no expiry in milliseconds.",
                                                correlationId: correlationId)
        }
        let type = response["accessTokenType"]?.doubleValue.flatMap { $0 == 0 || $0 == 1 ? Int($0) : nil } ?? 0
        let scopes = (text("grantedScopes") ?? "").split(separator: " ").prefix(256).map(String.init)
        return BrokerTokenResponse(account: account, accessToken: accessToken, accessTokenType: type,
                                   expiresOn: expiresOn, extendedExpiresOn: milliseconds(response["extendedExpiresOn"]),
                                   idToken: idToken, clientInfo: text("clientInfo") ?? account.clientInfo,
                                   grantedScopes: scopes, signedHttpRequest: text("signedHttpRequest").flatMap(compactJWS),
                                   popKeyThumbprint: text("popKeyThumbprint").flatMap { $0.utf8.count <= 256 ? $0 : nil })
    }

    private static func isCompactJWSByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// The signed request of a `generateSignedHttpRequest` answer.
    package static func signedHTTPRequest(_ data: Data, correlationId: UUID?) throws -> String {
        let object = try root(data, correlationId: correlationId)
        if let error = object["error"] { throw failure(error, correlationId: correlationId) }
        guard let text = object["signedHttpRequest"]?.stringValue, text.utf8.count <= maximumFieldLength,
              let request = compactJWS(text) else {
            throw MSALErrorInfo.invalidResponse("The broker's answer has no signed HTTP request.", correlationId: correlationId)
        }
        return request
    }

    /// `text` when it has the form of a compact JWS (three base64url parts, the header and claims not empty): what
    /// goes after `PoP ` in an Authorization header, so no space, quote or control character passes.
    static func compactJWS(_ text: String) -> String? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
              text.utf8.allSatisfy(isCompactJWSByte) else { return nil }
        return text
    }

    /// Whether a `signOutSilently` (or `removeAccount`) answer says the account is signed out.
    package static func signedOut(_ data: Data, correlationId: UUID?) throws -> Bool {
        let object = try root(data, correlationId: correlationId)
        if let error = object["error"] { throw failure(error, correlationId: correlationId) }
        if case .bool(let done)? = object["isSignOutComplete"] { return done }
        return object.isEmpty   // removeAccount answers an empty object
    }

    /// The version of a `getLinuxBrokerVersion` answer.
    package static func version(_ data: Data, correlationId: UUID?) throws -> String {
        let object = try root(data, correlationId: correlationId)
        if let error = object["error"] { throw failure(error, correlationId: correlationId) }
        guard let version = object["linuxBrokerVersion"]?.stringValue, !version.isEmpty, version.utf8.count <= 64 else {
            throw MSALErrorInfo.invalidResponse("The broker's version answer has no version.", correlationId: correlationId)
        }
        return version
    }

    // MARK: - Shared

    static func root(_ data: Data, correlationId: UUID?) throws -> [String: JSONValue] {
        guard data.count <= maximumSize else {
            throw MSALErrorInfo.invalidResponse("The broker's answer is larger than 1 MiB.", correlationId: correlationId)
        }
        guard let object = JSONValue.parseObject(data) else {
            throw MSALErrorInfo.invalidResponse("The broker's answer is not a JSON object.", correlationId: correlationId)
        }
        return object
    }

    /// A date from integer milliseconds since the epoch (what the broker sends), within a sane range: at least one
    /// second after the epoch (a value under 1000 would round to the epoch itself), before the year 3000.
    static func milliseconds(_ value: JSONValue?) -> Date? {
        guard let number = value?.doubleValue, number.isFinite, number >= 1000, number < 32_503_680_000_000 else { return nil }
        return Date(timeIntervalSince1970: (number / 1000).rounded(.down))
    }

    /// The error an `error` object describes.
    static func failure(_ value: JSONValue, correlationId: UUID?) -> MSALErrorInfo {
        BrokerError(value).errorInfo(correlationId: correlationId)
    }
}
