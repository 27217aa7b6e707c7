package import Foundation

/// An account the Enterprise SSO extension holds (an entry of `get_accounts_operation`'s `accounts`).
package struct SSOExtensionAccount: Sendable, Equatable {
    package var homeAccountId: String
    package var username: String
    package var environment: String
    /// Whether the device's single sign-on holds the account (`is_sso_account`, read as MSAL for iOS/macOS's common
    /// core reads it: `MSIDAccount`'s JSON form).
    package var isSSOAccount = false
}

/// What the extension says about the device (`get_device_info`, and the keys every answer carries).
package struct SSOExtensionDeviceInfo: Sendable, Equatable {
    package var shared: Bool
    package var fullMode: Bool
    package var extra: [String: String]
    /// macOS's platform SSO status (`platform_sso_status`).
    package var platformSSOStatus: MSALPlatformSSOStatus
    /// The administrator's preferred sign-in method (`preferred_auth_config`: `preferredAuthQRPIN`, else none).
    package var preferredAuthMethod: MSALPreferredAuthMethod
}

/// Reads the Enterprise SSO extension's answers: the header fields of its `authenticatedResponse`, a flat dictionary
/// (MSAL for iOS/macOS's common core: `MSIDBrokerOperationResponse`, `MSIDBrokerOperationTokenResponse`,
/// `MSIDBrokerOperationGetAccountsResponse`, `MSIDDeviceInfo`). The extension is another process's code: sizes are
/// bounded, the answer must be for the operation asked, and every failure is typed.
package enum SSOExtensionAnswer {
    static let maximumFields = 256
    static let maximumValue = 1 << 16

    /// `fields` with lower-case names: header field names are case-insensitive, and an `HTTPURLResponse` may change
    /// their case (the first of two names that differ only in case wins).
    static func normalized(_ fields: [String: String]) -> [String: String] {
        Dictionary(fields.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// The fields of a successful answer to `operation`, their names in lower case.
    package static func checked(_ raw: [String: String], _ operation: SSOExtensionRequest.Operation,
                                correlationId: UUID) throws -> [String: String] {
        let fields = normalized(raw)
        guard fields.count <= maximumFields, fields.allSatisfy({ $0.key.utf8.count <= 256 && $0.value.utf8.count <= maximumValue }) else {
            throw MSALErrorInfo.invalidResponse("The SSO extension's answer is too large.", correlationId: correlationId)
        }
        guard fields["operation"] == operation.rawValue else {
            throw MSALErrorInfo.internal(.internalErrorBrokerCorruptedResponse,
                                         "The SSO extension answered another operation than \(operation.rawValue).",
                                         correlationId: correlationId)
        }
        guard ["1", "true", "yes"].contains((fields["success"] ?? "").lowercased()) else {
            // A failed token answer carries the identity platform's OAuth fields (`MSIDTokenResponse.m:169-172`,
            // `MSIDAADTokenResponse.m:95-104`), which the common core turns into its OAuth errors
            // (`MSIDOauth2Factory.m:83-101`) and MSAL into its own.
            if let oauth = BrokerErrorMapping.oauth(fields, correlationId: correlationId) { throw oauth }
            throw MSALErrorInfo.internal(.internalErrorBrokerUnknown, "The SSO extension's \(operation.rawValue) failed.",
                                         correlationId: correlationId)
        }
        return fields
    }

    /// The token response of a successful `login` or `refresh`.
    static func tokenResponse(_ fields: [String: String], now: Date, correlationId: UUID) throws -> TokenResponse {
        try AuthenticatorBrokerResponse.tokenResponse(fields, now: now, correlationId: correlationId)
    }

    /// The accounts of a `get_accounts_operation` answer (a JSON array in one string); an entry without a home
    /// account id or user name is left out.
    package static func accounts(_ raw: [String: String], correlationId: UUID) throws -> [SSOExtensionAccount] {
        let fields = normalized(raw)
        guard let text = fields["accounts"], !text.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        guard let list = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [Any] else {
            throw MSALErrorInfo.invalidResponse("The SSO extension's accounts are not a JSON array.", correlationId: correlationId)
        }
        return list.prefix(1000).compactMap { item in
            guard let object = item as? [String: Any], let home = object["home_account_id"] as? String, !home.isEmpty,
                  let username = object["username"] as? String, !username.isEmpty, home.utf8.count <= 512,
                  username.utf8.count <= 512 else { return nil }
            let sso: Bool
            switch object["is_sso_account"] {
            case let flag as Bool: sso = flag
            case let text as String: sso = ["1", "true", "yes"].contains(text.lowercased())
            case let number as NSNumber: sso = number.intValue != 0
            default: sso = false
            }
            return SSOExtensionAccount(homeAccountId: home, username: username,
                                       environment: object["environment"] as? String ?? "login.microsoftonline.com",
                                       isSSOAccount: sso)
        }
    }

    /// The device information every answer carries (MSAL for iOS/macOS merges `extraDeviceInfo` into
    /// `extraDeviceInformation` and adds `isSSOExtensionInFullMode`).
    package static func deviceInfo(_ raw: [String: String]) -> SSOExtensionDeviceInfo {
        let fields = normalized(raw)
        var extra: [String: String] = [:]
        if let text = fields["extradeviceinfo"],
           let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] {
            for (key, value) in object.prefix(64) {
                if let string = value as? String, string.utf8.count <= 1024 { extra[key] = string }
            }
        }
        let full = (fields["sso_extension_mode"] ?? "full") != "silent_only"
        extra["isSSOExtensionInFullMode"] = full ? "Yes" : "No"
        return SSOExtensionDeviceInfo(shared: fields["device_mode"] == "shared", fullMode: full, extra: extra,
                                      platformSSOStatus: MSALPlatformSSOStatus(extensionValue: fields["platform_sso_status"]),
                                      preferredAuthMethod: fields["preferred_auth_config"] == "preferredAuthQRPIN" ? .QRPIN : .none)
    }

}
