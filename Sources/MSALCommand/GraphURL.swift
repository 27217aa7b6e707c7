import Foundation

/// The URL `msal graph` calls.
enum GraphURL {
    /// The URL of `path` (such as `/me` or `v1.0/me`) under `endpoint` (such as `https://graph.microsoft.com`);
    /// `v1.0` is added when the path names no version.
    static func url(endpoint: String, path: String) -> URL? {
        if path.hasPrefix("https://") || path.hasPrefix("http://") { return URL(string: path) }
        var base = endpoint
        while base.hasSuffix("/") { base.removeLast() }
        var relative = path
        while relative.hasPrefix("/") { relative.removeFirst() }
        if !(relative.hasPrefix("v1.0/") || relative.hasPrefix("beta/") || relative == "v1.0" || relative == "beta"
             || base.hasSuffix("/v1.0") || base.hasSuffix("/beta")) {
            relative = "v1.0/" + relative
        }
        return URL(string: base + "/" + relative)
    }
}
