import Foundation
import MSAL
import MSALEmulator
import MSALTestSupport
import Testing

/// The independent validator of signed requests (`Tests/python/pop_validator.py`, written from Microsoft's validator's
/// rules, sharing no code with the library or the emulator), run on a signed request the library made: the inner
/// token verified with the emulator's published keys, the key thumbprint, the signature, `ts`, `m`, `u` and `p`.
/// Skipped where the Python peers are not installed, unless MSAL_INTEROP_REQUIRED=1.
enum IndependentPoPValidator {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("python/pop_validator.py").path

    /// The validated token's claims; nil when the validator cannot run here. Records an issue when it refuses.
    @discardableResult
    static func validate(_ signedRequest: String, method: String = "GET", url: URL,
                         emulator: IdentityEmulator) async throws -> [String: Any]? {
        guard let python = InteropTests.python else {
            if InteropTests.required { Issue.record("The independent PoP validator needs the Python peers (.venv).") }
            return nil
        }
        let http = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        let configurationURL = URL(string: "\(emulator.authorityURL.absoluteString)/v2.0/.well-known/openid-configuration")!
        let configuration = try await http.send(MSALHTTPRequest(method: "GET", url: configurationURL, headers: [:], timeout: 30))
        let keysLocation = (try JSONSerialization.jsonObject(with: configuration.body) as? [String: Any])?["jwks_uri"] as? String
        let keysURL = try #require(keysLocation.flatMap(URL.init(string:)))
        let keysResponse = try await http.send(MSALHTTPRequest(method: "GET", url: keysURL, headers: [:], timeout: 30))
        let jwks = try JSONSerialization.jsonObject(with: keysResponse.body) as? [String: Any]
        let input = try JSONSerialization.data(withJSONObject: [
            "shr": signedRequest, "method": method, "url": url.absoluteString, "keys": jwks?["keys"] ?? [],
        ])
        let result = try await ProcessRunner.run(URL(fileURLWithPath: python), [script], stdin: input, timeout: 120)
        guard result.status == 0, !result.timedOut,
              let claims = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            Issue.record("The independent validator refused the signed request: \(result.stdout) \(result.stderr)")
            return nil
        }
        return claims
    }
}
