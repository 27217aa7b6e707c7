public import Foundation

/// The other applications' token caches that a sign-out with ``MSALSignoutParameters/wipeCacheForAllAccounts`` also
/// removes on macOS, as MSAL for iOS/macOS lists them (`MSALWipeCacheForAllAccountsConfig.m`): Microsoft Office,
/// Teams, Visual Studio for Mac with the Azure CLI and PowerShell, Visual Studio Code, and To Do, each a login
/// keychain item named by its account, label and service. None elsewhere.
public final class MSALWipeCacheForAllAccountsConfig: NSObject, Sendable {
    /// The locations by display name; each value names the keychain item by its `kSecAttrAccount`, `kSecAttrLabel`
    /// and `kSecAttrService` values (keyed by those attributes' names). Empty on platforms other than macOS.
    public class func additionalPartnerLocations() -> [String: [String: String]] {
        #if os(macOS)
        return partnerLocations
        #else
        return [:]
        #endif
    }

    /// Security's attribute names (`kSecAttrAccount`, `kSecAttrLabel`, `kSecAttrService`).
    package static let account = "acct", label = "labl", service = "svce"

    /// The macOS list.
    package static let partnerLocations: [String: [String: String]] = [
        "Microsoft Office": item("adalcache", "com.microsoft.adalcache", "AdalCache"),
        "Microsoft Teams": item("Microsoft Teams Identities Cache", "Microsoft Teams Identities Cache",
                                "Microsoft Teams Identities Cache"),
        "Visual Studio for Mac, Azure CLI & PowerShell": item("MSALCache", "Microsoft.Developer.IdentityService",
                                                              "Microsoft.Developer.IdentityService"),
        "Visual Studio Code": item("microsoft.login", "vscodevscode.microsoft-authentication",
                                   "vscodevscode.microsoft-authentication"),
        "Microsoft To-Do AAD": item("com.microsoft.projectcheshire.keychain", "com.microsoft.to-do-mac.AADTokenCache",
                                    "com.microsoft.to-do-mac.AADTokenCache"),
        "Microsoft To-Do MSA": item("com.microsoft.projectcheshire.keychain", "com.microsoft.todo.MSAUserKeychain",
                                    "com.microsoft.todo.MSAUserKeychain"),
    ]

    private static func item(_ account: String, _ label: String, _ service: String) -> [String: String] {
        [Self.account: account, Self.label: label, Self.service: service]
    }
}
