import Foundation
import MSAL
import MSALTesting
@testable import MSALCore
import MSALTestSupport


/// The recording transport of MSALTesting.

/// Canned answers of a Microsoft Entra-like server.
enum FakeEntra {
    static let publicCloudAliases = ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"]

    static func json(_ object: Any, status: Int = 200) -> MSALHTTPResponse {
        MSALHTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"],
                         body: try! JSONSerialization.data(withJSONObject: object))
    }

    static func discovery(tenantEndpoint: String = "https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration") -> MSALHTTPResponse {
        json([
            "tenant_discovery_endpoint": tenantEndpoint,
            "api-version": "1.1",
            "metadata": [
                ["preferred_network": "login.microsoftonline.com", "preferred_cache": "login.windows.net",
                 "aliases": publicCloudAliases],
                ["preferred_network": "login.partner.microsoftonline.cn", "preferred_cache": "login.partner.microsoftonline.cn",
                 "aliases": ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"]],
            ],
        ])
    }

    static let invalidInstance = json([
        "error": "invalid_instance",
        "error_description": "AADSTS50049: Unknown or invalid instance.",
    ], status: 400)

    /// An OpenID configuration whose endpoints live under `base` (such as `https://host/tenant`).
    static func openID(base: String, issuer: String, extra: [String: String] = [:]) -> MSALHTTPResponse {
        var document = [
            "authorization_endpoint": "\(base)/oauth2/v2.0/authorize",
            "token_endpoint": "\(base)/oauth2/v2.0/token",
            "device_authorization_endpoint": "\(base)/oauth2/v2.0/devicecode",
            "end_session_endpoint": "\(base)/oauth2/v2.0/logout",
            "jwks_uri": "\(base)/discovery/v2.0/keys",
            "issuer": issuer,
        ]
        document.merge(extra) { $1 }
        return json(document)
    }

    /// Answers discovery and `/{path}/v2.0/.well-known/openid-configuration` for any authority.
    static func server() -> MSALRecordingHTTPClient.Handler {
        { request in
            let url = request.url
            if url.path.hasSuffix("/common/discovery/instance") { return discovery() }
            let suffix = "/v2.0/.well-known/openid-configuration"
            guard url.path.hasSuffix(suffix) else { return json(["error": "not_found"], status: 404) }
            let path = String(url.path.dropLast(suffix.count))
            let origin = "\(url.scheme!)://\(url.host!)" + (url.port.map { ":\($0)" } ?? "")
            let tenant = path.split(separator: "/").first.map(String.init) ?? ""
            let issuer = ["common", "organizations"].contains(tenant)
                ? "https://login.microsoftonline.com/{tenantid}/v2.0" : "\(origin)/\(tenant)/v2.0"
            return openID(base: origin + path, issuer: issuer)
        }
    }
}

extension AuthorityDescriptor {
    /// Parses a test URL (the URL is always valid in tests).
    static func test(_ url: String, as kind: AuthorityKind? = nil) -> AuthorityDescriptor {
        try! AuthorityDescriptor.parse(URL(string: url)!, as: kind)
    }
}
