package import Foundation

/// A PKeyAuth challenge: the identity platform asking the client to prove the device it runs on (device-based
/// Conditional Access). It comes two ways, as MSAL for iOS/macOS's common core reads them:
/// - to an embedded web view, as a navigation to `urn:http-auth:PKeyAuth?Context=…&Version=…&nonce=…&SubmitUrl=…`
///   (`IdentityCore/src/webview/embeddedWebview/challangeHandlers/MSIDPKeyAuthHandler.m:52-64`);
/// - to a token request, as HTTP 401 (or 400) with `WWW-Authenticate: PKeyAuth Context="…", Version="…", nonce="…"`
///   (`IdentityCore/src/network/error_handler/MSIDAADRequestErrorHandler.m:95-121`).
///
/// Outside input: bounded in size and number of fields; a malformed challenge is nil.
package struct PKeyAuthChallenge: Sendable, Equatable {
    /// The prefix of a web view challenge (`kMSIDPKeyAuthUrn`), compared without regard to case.
    package static let urnPrefix = "urn:http-auth:pkeyauth?"
    /// The header a client sends to say it answers PKeyAuth (`kMSIDPKeyAuthHeader`, `MSIDWorkPlaceJoinConstants.m:37`),
    /// and its value.
    package static let advertisingHeader = "x-ms-PkeyAuth+"
    package static let advertisingVersion = "1.0"
    static let maximumLength = 16_384

    /// The challenge's fields, by name as sent (`Context`, `Version`, `nonce`, `SubmitUrl`, `CertAuthorities`,
    /// `TenantId`, `SupportedAlgs`).
    package var fields: [String: String]

    /// A field by name, without regard to case.
    package func field(_ name: String) -> String? {
        if let exact = fields[name] { return exact }
        return fields.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    package var context: String { field("Context") ?? "" }
    package var version: String { field("Version") ?? "" }
    package var nonce: String? { field("nonce") }
    package var submitURL: URL? { field("SubmitUrl").flatMap(URL.init(string:)) }
    package var tenantId: String? { field("TenantId") }

    package init(fields: [String: String]) {
        self.fields = fields
    }

    /// The challenge of a web view navigation to `urn:http-auth:PKeyAuth?…`: its query percent-decoded (a `+` stays a
    /// `+`; a pair with more than one `=` is skipped, as the common core's `msidDictionaryFromURLEncodedString`
    /// does). Nil for any other address, or one without `SubmitUrl` (the common core's "Incomplete PKeyAuth
    /// challenge").
    package init?(url: URL) {
        let text = url.absoluteString
        guard text.utf8.count <= Self.maximumLength, text.lowercased().hasPrefix(Self.urnPrefix) else { return nil }
        let query = text.dropFirst(Self.urnPrefix.count)
        var fields: [String: String] = [:]
        for pair in query.split(separator: "&").prefix(32) {
            let parts = pair.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, let name = String(parts[0]).removingPercentEncoding, !name.isEmpty,
                  let value = String(parts[1]).removingPercentEncoding else { continue }
            fields[name] = value
        }
        guard let submit = fields["SubmitUrl"].flatMap(URL.init(string:)), submit.scheme?.lowercased() == "https"
            || submit.host.map(AuthorityDescriptor.isLoopbackHost) == true else { return nil }
        self.init(fields: fields)
    }

    /// The challenge of a `WWW-Authenticate` header: `PKeyAuth` then `name="value"` pairs separated by commas and
    /// spaces (a value may be unquoted; `\"` escapes a quote; a name repeated joins its values with `.`, as
    /// `MSIDPKeyAuthHandler.m:164-290` parses it). Nil when the header is not PKeyAuth, a name does not start
    /// with a letter or a digit, or has no value (`PKeyAuth qweqwe`, `MSIDPKeyAuthHandlerTests.m:111-118`).
    package init?(wwwAuthenticate header: String) {
        guard header.utf8.count <= Self.maximumLength else { return nil }
        let trimmed = header.drop { $0 == " " }
        guard trimmed.lowercased().hasPrefix("pkeyauth") else { return nil }
        var rest = Substring(trimmed.dropFirst("pkeyauth".count))
        guard rest.isEmpty || rest.first == " " else { return nil }
        var fields: [String: String] = [:]
        while fields.count < 32 {
            rest = rest.drop { $0 == " " || $0 == "," || $0 == "\t" }
            guard let first = rest.first else { break }
            guard first.isLetter || first.isNumber else { return nil }
            let name = rest.prefix { $0 != "=" && $0 != " " && $0 != "," }
            rest = rest.dropFirst(name.count).drop { $0 == " " }
            guard rest.first == "=" else { return nil }
            rest = rest.dropFirst().drop { $0 == " " }
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped { value.append(character); escaped = false }
                    else if character == "\\" { escaped = true }
                    else if character == "\"" { break }
                    else { value.append(character) }
                }
            } else {
                let bare = rest.prefix { $0 != "," && $0 != " " }
                value = String(bare)
                rest = rest.dropFirst(bare.count)
            }
            let key = String(name)
            fields[key] = fields[key].map { "\($0).\(value)" } ?? value
        }
        self.init(fields: fields)
    }
}

/// The answer to a PKeyAuth challenge (`MSIDPkeyAuthHelper.m:45-194`): with a registration of the device that the
/// challenge accepts, `PKeyAuth AuthToken="<JWT>", Context="…", Version="…"`, the JWT signed with the device key
/// and carrying its certificate; otherwise the empty form `PKeyAuth  Context="…", Version="…"` (two spaces, as the
/// common core writes it), so that the sign-in goes on without a device.
package enum PKeyAuthResponse {
    /// The `Authorization` value answering `challenge` for a request to `audience` (its query is left out of the
    /// token's `aud`), with `registration` (nil: the device is not registered) at `now`.
    package static func authorization(_ challenge: PKeyAuthChallenge, audience: URL,
                                      registration: MSALWorkplaceJoinRegistration?, now: Date) -> String {
        let token = registration.flatMap { signedToken(challenge, audience: audience, registration: $0, now: now) }
        return "PKeyAuth \(token.map { "AuthToken=\"\($0)\"," } ?? "") Context=\"\(echoed(challenge.context))\", "
            + "Version=\"\(echoed(challenge.version))\""
    }

    /// A challenge's value as the answer echoes it: without quotes, backslashes and control characters, which would
    /// end the quoted value or split the header line (the challenge is outside input; Entra's values are base64url).
    static func echoed(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.prefix(4096).filter {
            $0.value >= 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "\\" && !($0.value >= 0x80 && $0.value < 0xA0)
                && $0 != "\u{2028}" && $0 != "\u{2029}"
        }))
    }

    /// The signed JWT: header `{alg, typ: JWT, x5c: [certificate]}`, payload `{aud, nonce, iat}` (`iat` a string, as
    /// the common core writes it). Nil when the challenge names no nonce, accepts another algorithm
    /// (`SupportedAlgs`) or another issuer (`CertAuthorities`: the first GUID of the certificate's issuer must be one
    /// of its `OU=` values, `MSIDPkeyAuthHelper.m:113-148`), or the key cannot sign.
    static func signedToken(_ challenge: PKeyAuthChallenge, audience: URL, registration: MSALWorkplaceJoinRegistration,
                            now: Date) -> String? {
        guard let nonce = challenge.nonce, !nonce.isEmpty else { return nil }
        let algorithm = registration.key.algorithm
        if let supported = challenge.field("SupportedAlgs"),
           !supported.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == algorithm }) {
            return nil
        }
        if let authorities = challenge.field("CertAuthorities") {
            let wanted = organizationalUnits(authorities.removingPercentEncoding ?? authorities)
            guard let issuerUnit = firstGUID(in: registration.certificate), wanted.contains(issuerUnit) else { return nil }
        }
        var components = URLComponents(url: audience, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        guard let aud = components?.string else { return nil }
        return try? registration.signedJWT(["aud": aud, "nonce": nonce,
                                            "iat": String(CacheTimestamp.saturatedSeconds(now.timeIntervalSince1970))])
    }

    /// The GUIDs of the `OU=` values of a `CertAuthorities` list, upper-case.
    static func organizationalUnits(_ authorities: String) -> Set<String> {
        var units: Set<String> = []
        for part in authorities.uppercased().split(whereSeparator: { $0 == "," || $0 == ";" }).prefix(64) {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("OU="), let guid = firstGUID(in: Data(trimmed.utf8)) { units.insert(guid) }
        }
        return units
    }

    /// The first GUID written in ASCII in `data` (a certificate's DER: its issuer comes before its subject), upper-case.
    static func firstGUID(in data: Data) -> String? {
        let bytes = [UInt8](data.prefix(16_384))
        guard bytes.count >= 36 else { return nil }
        let dashes: Set<Int> = [8, 13, 18, 23]
        func isHex(_ byte: UInt8) -> Bool {
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 70) || (byte >= 97 && byte <= 102)
        }
        var start = 0
        while start + 36 <= bytes.count {
            var matches = true
            for offset in 0..<36 {
                let byte = bytes[start + offset]
                if dashes.contains(offset) ? byte != 45 : !isHex(byte) { matches = false; break }
            }
            if matches { return String(decoding: bytes[start..<start + 36], as: UTF8.self).uppercased() }
            start += 1
        }
        return nil
    }
}
