public import Foundation

/// Parameters of a device code sign-in (RFC 8628), for devices without a browser or for terminals.
///
/// ```swift
/// let parameters = MSALDeviceCodeParameters(scopes: ["User.Read"])
/// let result = try await app.acquireTokenWithDeviceCode(with: parameters) { code in
///     print(code.message)   // "To sign in, use a web browser to open the page ... and enter the code ..."
/// }
/// ```
///
/// ``MSALTokenParameters/scopes``, ``MSALTokenParameters/authority``, ``MSALTokenParameters/claimsRequest``,
/// ``MSALTokenParameters/extraQueryParameters`` and ``MSALTokenParameters/correlationId`` apply;
/// ``MSALTokenParameters/account`` and ``MSALTokenParameters/loginHint`` are not used by this flow (the user picks
/// the account on the other device).
public final class MSALDeviceCodeParameters: MSALTokenParameters, @unchecked Sendable {
    /// Creates device code parameters for `scopes`.
    public override init(scopes: [String]) {
        super.init(scopes: scopes)
    }
}

/// What the user needs to sign in on another device: the code to enter and where to enter it.
///
/// Show ``message`` (Entra's localized instructions) or build your own text from ``userCode`` and
/// ``verificationURI``. The device code itself, which is a secret, is never exposed.
public final class MSALDeviceCode: Sendable, CustomStringConvertible {
    /// The code the user enters on the verification page, such as `ABCD-EFGH` or `F7K3M9QPX`.
    public let userCode: String
    /// The page where the user enters the code, such as `https://microsoft.com/devicelogin`.
    public let verificationURI: URL
    /// A page that already carries the code, when the server provides one (`verification_uri_complete`).
    public let verificationURIComplete: URL?
    /// Instructions for the user, from the server when it sends them (Entra does), else built by MSAL.
    public let message: String
    /// How long the code is valid after it was issued, in seconds.
    public let expiresIn: TimeInterval
    /// When the code expires.
    public let expiresOn: Date
    /// The polling interval the server asked for, in seconds.
    public let interval: TimeInterval

    /// The device code (secret): sent only to the token endpoint.
    let deviceCode: String

    init(deviceCode: String, userCode: String, verificationURI: URL, verificationURIComplete: URL?, message: String,
         expiresIn: TimeInterval, expiresOn: Date, interval: TimeInterval) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.message = message
        self.expiresIn = expiresIn
        self.expiresOn = expiresOn
        self.interval = interval
    }

    /// The user code, verification URI and expiry; never the device code.
    public var description: String {
        "MSALDeviceCode(userCode: \(userCode), verificationURI: \(verificationURI.absoluteString), "
            + "expiresOn: \(expiresOn), interval: \(ExternalNumber.clampedInteger(interval)))"
    }

    /// Reads a device authorization response (RFC 8628 §3.2). `verification_url` (Entra's v1 spelling) is
    /// accepted for `verification_uri`; `expires_in` defaults to 1800 s and `interval` to 5 s (at least 1 s).
    /// `expires_in` and `interval` are numbers or numeric strings, not negative, and at most 10 years (longer
    /// values are clamped); anything else is refused with ``MSALInternalError/internalErrorInvalidResponse``.
    static func parse(_ body: Data, now: Date, correlationId: UUID) throws -> MSALDeviceCode {
        guard let object = JSONValue.parseObject(body) else {
            throw MSALErrorInfo.invalidResponse("The device authorization response is not a JSON object.",
                                                correlationId: correlationId)
        }
        guard let deviceCode = object["device_code"]?.stringValue, !deviceCode.isEmpty,
              let userCode = object["user_code"]?.stringValue, !userCode.isEmpty,
              let uriText = object["verification_uri"]?.stringValue ?? object["verification_url"]?.stringValue,
              let uri = URL(string: uriText), uri.scheme != nil
        else {
            throw MSALErrorInfo.invalidResponse(
                "The device authorization response lacks device_code, user_code or verification_uri.",
                correlationId: correlationId)
        }
        func seconds(_ key: String) throws -> TimeInterval? {
            try ExternalNumber.lifetime(object[key], field: key, in: "the device authorization response",
                                        correlationId: correlationId)
        }
        let expiresIn = try seconds("expires_in") ?? 1800
        let interval = try seconds("interval") ?? DeviceCodePolling.defaultInterval
        let message = object["message"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            ?? "To sign in, use a web browser to open the page \(uriText) and enter the code \(userCode) to authenticate."
        return MSALDeviceCode(
            deviceCode: deviceCode, userCode: userCode, verificationURI: uri,
            verificationURIComplete: object["verification_uri_complete"]?.stringValue.flatMap(URL.init(string:)),
            message: message, expiresIn: expiresIn, expiresOn: now.addingTimeInterval(expiresIn),
            interval: max(1, interval))
    }
}

/// Receives the user code and instructions of a device code sign-in, once, before polling starts.
public typealias MSALDeviceCodeHandler = @Sendable (MSALDeviceCode) -> Void
