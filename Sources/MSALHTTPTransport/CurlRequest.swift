import CMSALCurl
import Foundation

/// One request, checked and ready to be set on a worker.
struct CurlRequest: Sendable {
    let url: String
    let host: String
    let isHTTPS: Bool
    let method: String
    let headerLines: [String]
    let body: Data?
    let seconds: Double
    let connectSeconds: Double
    let idleSeconds: Double
    let proxy: HTTPProxySettings.Server?

    /// Throws ``HTTPTransportError/Kind/invalidRequest`` for a URL that is not absolute http(s), a method that is
    /// not a token, or a header that is not a token name with a value free of CR, LF and NUL.
    init(_ request: HTTPTransportRequest, configuration: HTTPTransportConfiguration) throws {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = request.url.host, !host.isEmpty else {
            throw HTTPTransportError(.invalidRequest, "Only absolute http and https URLs can be requested.")
        }
        guard !request.method.isEmpty, request.method.utf8.allSatisfy(CurlResponseHead.isTokenByte) else {
            throw HTTPTransportError(.invalidRequest, "The request to \(host) has a method that is not valid.")
        }
        var lines: [String] = []
        var named: Set<String> = []
        for header in request.headers {
            let name = header.name.lowercased()
            guard !name.isEmpty, name.utf8.allSatisfy(CurlResponseHead.isTokenByte),
                  !header.value.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }) else {
                throw HTTPTransportError(.invalidRequest, "The request to \(host) has a header that is not valid.")
            }
            // Framing is the transport's: the caller's Host, Content-Length and Transfer-Encoding are not sent.
            if ["host", "content-length", "transfer-encoding", "connection", "expect"].contains(name) { continue }
            named.insert(name)
            let value = header.value.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            // `Name;` is libcurl's spelling of a header with an empty value (`Name:` removes one).
            lines.append(value.isEmpty ? header.name + ";" : header.name + ": " + value)
        }
        // No header libcurl would add on its own: exactly the caller's headers go out.
        lines.append("Expect:")
        if !named.contains("accept") { lines.append("Accept:") }
        if !named.contains("content-type") { lines.append("Content-Type:") }
        url = request.url.absoluteString
        self.host = host
        isHTTPS = scheme == "https"
        method = request.method
        headerLines = lines
        body = request.body
        seconds = request.boundedTimeout
        connectSeconds = min(configuration.boundedConnectTimeout, seconds)
        // libcurl takes whole seconds; the pool's sweep closes connections idle for less.
        idleSeconds = max(1, configuration.boundedIdleConnectionTimeout)
        proxy = configuration.proxy.server(scheme: scheme, host: host)
    }

    /// Runs the request on `worker` (blocking this thread until it ends) and returns the response.
    func perform(on worker: CurlWorker, trust: CurlTrust?, limit: Int) throws -> HTTPTransportResponse {
        let raw = worker.raw
        try check(msal_curl_worker_reset(raw))
        try check(msal_curl_set_string(raw, MSAL_CURLOPT_URL, url))
        // Only http and https, even where the URL parser of libcurl reads something else (libcurl 7.85 and later;
        // the scheme is checked above either way).
        _ = msal_curl_set_string(raw, MSAL_CURLOPT_PROTOCOLS_STR, "http,https")
        switch (method, body) {
        case ("GET", nil): try check(msal_curl_set_long(raw, MSAL_CURLOPT_HTTPGET, 1))
        case ("HEAD", nil): try check(msal_curl_set_long(raw, MSAL_CURLOPT_NOBODY, 1))
        case (_, let body?):
            try body.withUnsafeBytes { try check(msal_curl_set_body(raw, $0.baseAddress, $0.count)) }
            if method != "POST" { try check(msal_curl_set_string(raw, MSAL_CURLOPT_CUSTOMREQUEST, method)) }
        case (_, nil):
            try check(msal_curl_set_string(raw, MSAL_CURLOPT_CUSTOMREQUEST, method))
        }
        for line in headerLines { try check(msal_curl_add_header(raw, line)) }
        try check(msal_curl_set_long(raw, MSAL_CURLOPT_TIMEOUT_MS, Int(max(1, (seconds * 1000).rounded(.up)))))
        try check(msal_curl_set_long(raw, MSAL_CURLOPT_CONNECTTIMEOUT_MS, Int(max(1, (connectSeconds * 1000).rounded(.up)))))
        try check(msal_curl_set_long(raw, MSAL_CURLOPT_MAXAGE_CONN, Int(idleSeconds)))
        try check(msal_curl_set_offset(raw, MSAL_CURLOPT_MAXFILESIZE_LARGE, Int64(limit)))
        if let proxy {
            // A tunnel for http too, so that the proxy sees only the host and port, never a path or a header.
            let host = proxy.host.contains(":") ? "[\(proxy.host)]" : proxy.host
            try check(msal_curl_set_string(raw, MSAL_CURLOPT_PROXY, "http://\(host):\(proxy.port)"))
            try check(msal_curl_set_long(raw, MSAL_CURLOPT_HTTPPROXYTUNNEL, 1))
            if let username = proxy.username {
                try check(msal_curl_set_string(raw, MSAL_CURLOPT_PROXYUSERNAME, username))
                try check(msal_curl_set_string(raw, MSAL_CURLOPT_PROXYPASSWORD, proxy.password ?? ""))
            }
        } else {
            // An empty proxy turns off libcurl's own reading of the proxy variables: the configuration decides.
            try check(msal_curl_set_string(raw, MSAL_CURLOPT_PROXY, ""))
        }
        try trust?.apply(to: worker)

        let code = msal_curl_perform(raw, limit)
        if code == MSAL_CURLE_ABORTED_BY_CALLBACK { throw CancellationError() }
        guard code == 0 else {
            let connectCode = msal_curl_info_long(raw, MSAL_CURLINFO_HTTP_CONNECTCODE)
            throw CurlErrorMapping.error(code, description: String(cString: msal_curl_strerror(code)), host: host,
                                         timeout: seconds, limit: limit,
                                         proxyRefused: proxy != nil && connectCode >= 300,
                                         bodyOverflowed: msal_curl_body_overflowed(raw) != 0)
        }
        var headLength = 0, bodyLength = 0
        let head = msal_curl_headers(raw, &headLength)
        let bodyBytes = msal_curl_body(raw, &bodyLength)
        let fields = CurlResponseHead.fields(UnsafeBufferPointer(start: head, count: head == nil ? 0 : headLength))
        let data = bodyBytes.map { Data(bytes: $0, count: bodyLength) } ?? Data()
        return HTTPTransportResponse(statusCode: msal_curl_info_long(raw, MSAL_CURLINFO_RESPONSE_CODE),
                                     headers: fields, body: data)
    }

    private func check(_ code: Int32) throws {
        guard code != 0 else { return }
        throw HTTPTransportError(code == MSAL_CURLE_OUT_OF_MEMORY ? .other : .invalidRequest,
                                 "libcurl refused the request to \(host) (libcurl \(code): \(String(cString: msal_curl_strerror(code)))).")
    }
}
