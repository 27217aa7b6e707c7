import Foundation

/// The library's identity on the wire (`x-client-*` headers and authorize query parameters).
enum ClientHeaders {
    /// The SDK name sent as `x-client-SKU`.
    static let sku = "MSAL.Swift"
    /// The library version.
    static let version = "1.0.0"

    static var operatingSystem: String {
        #if os(Linux)
        return "linux"
        #elseif os(macOS)
        return "macOS"
        #elseif os(iOS)
        return "iOS"
        #else
        return "unknown"
        #endif
    }

    /// The headers sent with every token request.
    static func tokenRequestHeaders(correlationId: UUID) -> [String: String] {
        [
            "Accept": "application/json",
            "Content-Type": "application/x-www-form-urlencoded",
            "x-client-SKU": sku,
            "x-client-Ver": version,
            "x-client-OS": operatingSystem,
            "x-ms-lib-capability": "retry-after, h429",
            "client-request-id": correlationId.uuidString,
            "return-client-request-id": "true",
        ]
    }

    /// The library identification sent as authorize-URL query parameters.
    static var authorizeQueryPairs: [(String, String)] {
        [("x-client-SKU", sku), ("x-client-Ver", version), ("x-client-OS", operatingSystem)]
    }
}
