import Foundation

/// Host aliases known without instance discovery, so that a cached token is found with no network at all.
enum KnownAliases {
    private static let groups: [[String]] = [
        ["login.microsoftonline.com", "login.windows.net", "login.microsoft.com", "sts.windows.net"],
        ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"],
        ["login.microsoftonline.de"],
        ["login.microsoftonline.us", "login.usgovcloudapi.net"],
        ["login-us.microsoftonline.com"],
    ]
    private static let index: [String: [String]] = {
        var result: [String: [String]] = [:]
        for group in groups { for host in group { result[host] = group } }
        return result
    }()

    /// `hosts` plus every alias known for them, lower-cased, without duplicates, in a stable order.
    static func expand(_ hosts: [String]) -> [String] {
        if hosts.count == 2, hosts[0] == hosts[1] || CacheStrings.lower(hosts[0]) == CacheStrings.lower(hosts[1]) {
            let lowered = CacheStrings.lower(hosts[0])
            return index[lowered] ?? [lowered]
        }
        var result: [String] = []
        for host in hosts {
            let lowered = CacheStrings.lower(host)
            for alias in index[lowered] ?? [lowered] where !result.contains(alias) {
                result.append(alias)
            }
        }
        return result
    }
}
