package import Foundation

/// What the Azure CLI's `azureProfile.json` says of the default subscription's sign-in. Parsed from outside input
/// (a file another program writes): bounded, typed checks, nil for anything unreadable; fuzzed (`azure-cli`).
package struct AzureCLIProfile: Sendable, Equatable {
    /// The Azure CLI's public client id.
    package static let clientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    /// The largest profile read (az's are a few kilobytes).
    package static let maximumSize = 16 << 20

    package enum Kind: Sendable, Equatable { case user, servicePrincipal, managedIdentity }

    package struct Account: Sendable, Equatable {
        package var name: String
        package var kind: Kind
        package var tenantId: String
    }

    /// The signed-in account of the default subscription; nil when az is signed out or names no usable account.
    package var defaultAccount: Account?

    package init(defaultAccount: Account?) { self.defaultAccount = defaultAccount }

    /// The profile in `data` (az writes it with a byte order mark); nil when it is not a profile at all.
    package static func parse(_ data: Data) -> AzureCLIProfile? {
        guard data.count <= maximumSize else { return nil }
        var data = data
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { data = data.dropFirst(3) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let subscriptions = object["subscriptions"] as? [[String: Any]] else { return nil }
        guard let chosen = subscriptions.first(where: { $0["isDefault"] as? Bool == true }),
              let user = chosen["user"] as? [String: Any], let name = user["name"] as? String, !name.isEmpty,
              let tenantId = chosen["tenantId"] as? String, !tenantId.isEmpty else {
            return AzureCLIProfile(defaultAccount: nil)
        }
        let kind: Kind
        switch (user["type"] as? String, user["assignedIdentityInfo"]) {
        case ("user", _): kind = .user
        case ("servicePrincipal", .some): kind = .managedIdentity
        case ("servicePrincipal", .none) where name == "systemAssignedIdentity" || name == "userAssignedIdentity":
            kind = .managedIdentity
        case ("servicePrincipal", .none): kind = .servicePrincipal
        default: return AzureCLIProfile(defaultAccount: nil)
        }
        return AzureCLIProfile(defaultAccount: Account(name: name, kind: kind, tenantId: tenantId))
    }
}

/// What `az account get-access-token --output json` prints: the access token and its expiry. Outside input (a
/// child process's output); fuzzed (`azure-cli`).
package enum AzureCLIAccessToken {
    /// The token and its expiry (`expires_on`, epoch seconds as a number or a string; nil when absent or not a
    /// finite time); nil when the output holds no access token.
    package static func parse(_ output: Data) -> (accessToken: String, expiresOn: Date?)? {
        guard output.count <= AzureCLIProfile.maximumSize,
              let object = try? JSONSerialization.jsonObject(with: output) as? [String: Any],
              let accessToken = object["accessToken"] as? String, !accessToken.isEmpty else { return nil }
        let seconds = (object["expires_on"] as? NSNumber)?.doubleValue ?? (object["expires_on"] as? String).flatMap(Double.init)
        let expiresOn = seconds.flatMap { $0.isFinite && abs($0) < 1e11 ? Date(timeIntervalSince1970: $0) : nil }
        return (accessToken, expiresOn)
    }
}
