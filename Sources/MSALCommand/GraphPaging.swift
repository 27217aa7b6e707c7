import Foundation

/// `msal graph --paginate`: follows `@odata.nextLink` on the Graph endpoint's origin only.
enum GraphPaging {
    /// The most pages followed.
    static let maximumPages = 1000

    /// Whether `url` has the origin (scheme, host, port) of `origin`.
    static func sameOrigin(_ url: URL, _ origin: URL) -> Bool {
        func port(_ u: URL) -> Int? { u.port ?? (u.scheme?.lowercased() == "https" ? 443 : u.scheme?.lowercased() == "http" ? 80 : nil) }
        return url.scheme?.lowercased() == origin.scheme?.lowercased() && url.host?.lowercased() == origin.host?.lowercased()
            && port(url) == port(origin)
    }

    /// The next page's URL of a page, or nil on the last page. Throws when the link leaves `origin` or is not a URL.
    static func nextLink(_ page: [String: Any], origin: URL) throws -> URL? {
        guard let link = page["@odata.nextLink"] else { return nil }
        guard let text = link as? String, let url = URL(string: text), url.scheme != nil, url.host != nil else {
            throw CLIError(message: "Microsoft Graph sent an @odata.nextLink that is not a URL; stopped paging.")
        }
        guard sameOrigin(url, origin) else {
            let shown = "\(url.scheme ?? "")://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
            throw CLIError(message: "The @odata.nextLink points to another origin (\(shown)) than the Graph endpoint "
                           + "(\(origin.scheme ?? "")://\(origin.host ?? "")); not following it with the token.")
        }
        return url
    }
}
