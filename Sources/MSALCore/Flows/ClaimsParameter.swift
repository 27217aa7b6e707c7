import Foundation

/// Builds the `claims` request parameter from the client capabilities and a claims request.
enum ClaimsParameter {
    /// `{"access_token":{"xms_cc":{"values":[...]}}}` merged with `claimsRequest`; nil when both are empty.
    static func build(capabilities: [String]?, claimsRequest: MSALClaimsRequest?) -> String? {
        var object = claimsRequest?.object ?? [:]
        if let capabilities, !capabilities.isEmpty {
            var accessToken = object["access_token"]?.objectValue ?? [:]
            accessToken["xms_cc"] = .object(["values": .array(capabilities.map { .string($0) })])
            object["access_token"] = .object(accessToken)
        }
        guard !object.isEmpty else { return nil }
        return JSONText.serialize(.object(object))
    }
}
