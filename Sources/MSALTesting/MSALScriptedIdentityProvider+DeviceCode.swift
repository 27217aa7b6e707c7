import Foundation
import MSALCore

extension MSALScriptedIdentityProvider {
    /// `POST .../oauth2/v2.0/devicecode`: issues a device code (RFC 8628 §3.2) with ``deviceCodeInterval`` and
    /// ``deviceCodeLifetime``. The user code is the device code's number, such as `CODE0001`.
    func deviceAuthorization(_ form: [String: String]) -> MSALHTTPResponse {
        let scope = form["scope"] ?? ""
        let number = deviceCodes.withLock { codes -> Int in
            let number = codes.count + 1
            codes["scripted-device-code-\(number)"] = scope
            return number
        }
        let userCode = "CODE" + String(repeating: "0", count: max(0, 4 - String(number).count)) + String(number)
        let page = "https://\(host)/common/oauth2/deviceauth"
        return Self.json(200, ["device_code": "scripted-device-code-\(number)", "user_code": userCode,
                               "verification_uri": page, "expires_in": deviceCodeLifetime,
                               "interval": deviceCodeInterval,
                               "message": "To sign in, open \(page) and enter the code \(userCode)."])
    }

    /// The scope a device code was issued for, once: a redeemed code is gone.
    func redeem(deviceCode: String) -> String? {
        deviceCodes.withLock { codes in codes.removeValue(forKey: deviceCode) }
    }
}
