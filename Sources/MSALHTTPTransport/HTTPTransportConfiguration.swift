public import Foundation

/// How an ``HTTPTransport`` connects: which certificate authorities it trusts, which proxy it uses, its limits.
///
/// ``fromEnvironment(_:)`` reads the conventional variables once:
/// - `SSL_CERT_FILE` (a PEM bundle) and `SSL_CERT_DIR` (a directory of PEM certificates) replace the system's
///   trust store, as they do for OpenSSL, curl and Python;
/// - `HTTPS_PROXY`/`https_proxy` for `https` URLs, `http_proxy` for `http` URLs (the upper-case `HTTP_PROXY` is
///   ignored, as curl does: CGI programs receive it from a request header), and `NO_PROXY`/`no_proxy`.
public struct HTTPTransportConfiguration: Sendable, Equatable {
    /// Where the trusted certificate authorities come from.
    public enum TrustRoots: Sendable, Equatable {
        /// The operating system's trust store.
        case system
        /// A PEM bundle file and/or a directory of PEM certificates, in place of the system's store.
        case locations(file: String?, directory: String?)
    }

    /// The certificate authorities trusted for `https`.
    public var trustRoots: TrustRoots
    /// Certificate authorities (PEM text, one or more certificates each) trusted in addition to ``trustRoots``.
    public var additionalTrustRootsPEM: [String]
    /// The proxies and the hosts that bypass them.
    public var proxy: HTTPProxySettings
    /// The longest a new connection (TCP, proxy tunnel and TLS) may take, in seconds, capped by each request's
    /// own timeout. Default 10.
    public var connectTimeout: TimeInterval
    /// How long an idle connection is kept for reuse, in seconds. Default 60.
    public var idleConnectionTimeout: TimeInterval
    /// The largest response body accepted, in bytes. Default 16 MiB.
    public var maximumResponseBodySize: Int

    /// Creates a configuration. The defaults trust the system's store and use no proxy.
    public init(trustRoots: TrustRoots = .system, additionalTrustRootsPEM: [String] = [],
                proxy: HTTPProxySettings = HTTPProxySettings(), connectTimeout: TimeInterval = 10,
                idleConnectionTimeout: TimeInterval = 60, maximumResponseBodySize: Int = 16 << 20) {
        self.trustRoots = trustRoots
        self.additionalTrustRootsPEM = additionalTrustRootsPEM
        self.proxy = proxy
        self.connectTimeout = connectTimeout
        self.idleConnectionTimeout = idleConnectionTimeout
        self.maximumResponseBodySize = maximumResponseBodySize
    }

    /// The configuration the environment describes (see the type's description); empty values are ignored.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> HTTPTransportConfiguration {
        func value(_ names: String...) -> String? {
            for name in names {
                if let found = environment[name]?.trimmingCharacters(in: .whitespaces), !found.isEmpty { return found }
            }
            return nil
        }
        var configuration = HTTPTransportConfiguration()
        let file = value("SSL_CERT_FILE")
        let directory = value("SSL_CERT_DIR")
        if file != nil || directory != nil {
            configuration.trustRoots = .locations(file: file, directory: directory)
        }
        configuration.proxy = HTTPProxySettings(
            https: value("HTTPS_PROXY", "https_proxy").flatMap(HTTPProxySettings.Server.init(parsing:)),
            http: value("http_proxy").flatMap(HTTPProxySettings.Server.init(parsing:)),
            noProxy: value("NO_PROXY", "no_proxy").map(HTTPProxySettings.parseNoProxy) ?? [])
        return configuration
    }
}

extension HTTPTransportConfiguration {
    /// ``connectTimeout`` as both transports apply it: 1 ms to an hour (an hour when not finite).
    package var boundedConnectTimeout: Double {
        connectTimeout.isFinite ? min(max(connectTimeout, 0.001), 3600) : 3600
    }

    /// ``idleConnectionTimeout`` as both transports apply it: 0 to an hour (an hour when not finite).
    package var boundedIdleConnectionTimeout: Double {
        idleConnectionTimeout.isFinite ? min(max(idleConnectionTimeout, 0), 3600) : 3600
    }
}

extension HTTPTransportRequest {
    /// ``timeout`` as both transports apply it: 1 ms to a day (a day when not finite).
    package var boundedTimeout: Double {
        timeout.isFinite ? min(max(timeout, 0.001), 86_400) : 86_400
    }
}

/// Proxies for `http` and `https` URLs, and the hosts that are reached directly.
///
/// Loopback hosts (`localhost`, `127.0.0.0/8`, `::1`) are always reached directly: a proxy cannot reach this
/// machine's loopback interface.
public struct HTTPProxySettings: Sendable, Equatable {
    /// An HTTP proxy (`CONNECT` tunnels for `https`).
    public struct Server: Sendable, Hashable {
        /// The proxy's host.
        public var host: String
        /// The proxy's port.
        public var port: Int
        /// Basic credentials for the proxy, if the proxy URL carried them.
        public var username: String?
        /// The password that goes with ``username``.
        public var password: String?

        /// Creates a proxy server description.
        public init(host: String, port: Int, username: String? = nil, password: String? = nil) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
        }

        /// Parses `http://[user:password@]host[:port][/]` or `host[:port]` (port 80 when omitted); nil for other
        /// schemes (`socks5://`, `https://`), which this transport does not speak.
        public init?(parsing text: String) {
            let withScheme = text.contains("://") ? text : "http://" + text
            guard let components = URLComponents(string: withScheme), components.scheme?.lowercased() == "http",
                  let host = components.host, !host.isEmpty else { return nil }
            let port = components.port ?? 80
            guard (1...65535).contains(port) else { return nil }
            self.init(host: host, port: port, username: components.user?.removingPercentEncoding,
                      password: components.password?.removingPercentEncoding)
        }
    }

    /// The proxy for `https` URLs.
    public var https: Server?
    /// The proxy for `http` URLs.
    public var http: Server?
    /// Host patterns reached directly: `*` (every host), a host name (matches it and its subdomains, with or
    /// without a leading dot), or an IP address.
    public var noProxy: [String]

    /// Creates proxy settings; the default uses no proxy.
    public init(https: Server? = nil, http: Server? = nil, noProxy: [String] = []) {
        self.https = https
        self.http = http
        self.noProxy = noProxy
    }

    /// The proxy for a request to `host` over `scheme`, or nil to connect directly.
    public func server(scheme: String, host: String) -> Server? {
        guard let server = scheme.lowercased() == "https" ? https : http else { return nil }
        let host = Self.normalized(host)
        if Self.isLoopback(host) { return nil }
        for pattern in noProxy {
            if pattern == "*" { return nil }
            if host == pattern || host.hasSuffix("." + pattern) { return nil }
        }
        return server
    }

    /// The entries of a `NO_PROXY` value, lower-cased, without ports or leading dots.
    public static func parseNoProxy(_ value: String) -> [String] {
        value.split(separator: ",").compactMap { raw in
            var entry = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if entry.hasPrefix("[") , let close = entry.firstIndex(of: "]") {
                entry = String(entry[entry.index(after: entry.startIndex)..<close])
            } else if entry.filter({ $0 == ":" }).count == 1, let colon = entry.firstIndex(of: ":") {
                entry = String(entry[..<colon])
            }
            while entry.hasPrefix(".") || entry.hasPrefix("*.") { entry.removeFirst(entry.hasPrefix("*.") ? 2 : 1) }
            return entry.isEmpty ? nil : entry
        }
    }

    private static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        while host.hasSuffix(".") { host.removeLast() }
        return host
    }

    private static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }
}
