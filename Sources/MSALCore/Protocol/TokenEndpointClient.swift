import Foundation

/// Everything one call needs to talk to the identity provider.
struct TokenRequestContext: Sendable {
    var http: any MSALHTTPClient
    var clientId: String
    var correlationId: UUID
    var retryCount: Int
    var retryInterval: TimeInterval
    var timeout: TimeInterval
    var clock: any MSALClock
    var log: MSALLog
    var throttle: ThrottleStore
    /// The answer to a PKeyAuth challenge (``PKeyAuthResponse``) for a request to the given address, for a client
    /// that proves its device (a public client); nil for one that does not, which then neither advertises PKeyAuth
    /// nor answers its challenges.
    var deviceAuthentication: (@Sendable (PKeyAuthChallenge, URL) -> String)? = nil
}

/// Remembers servers that asked the client to back off (HTTP 429, or `Retry-After` on a 5xx), so that the same
/// request is not sent again before the time the server gave.
actor ThrottleStore {
    /// The longest back-off honoured, in seconds.
    static let maximumDelay: TimeInterval = 3600
    /// The back-off after a 429 without `Retry-After`, in seconds.
    static let defaultDelay: TimeInterval = 60

    private var blocked: [String: (until: Date, error: MSALErrorInfo)] = [:]

    func check(_ key: String, now: Date) -> MSALErrorInfo? {
        guard let entry = blocked[key] else { return nil }
        if entry.until <= now {
            blocked[key] = nil
            return nil
        }
        var error = entry.error
        error.errorDescription = "The server asked to wait until \(entry.until) before retrying this request; "
            + "it was not sent. " + entry.error.errorDescription
        return error
    }

    func block(_ key: String, until: Date, error: MSALErrorInfo) {
        blocked[key] = (until, error)
    }

    func clear(_ key: String) { blocked[key] = nil }
}

/// Posts token requests (authorization code, refresh token, device code) and turns the answers into a
/// ``TokenResponse`` or a typed ``MSALErrorInfo``. 5xx answers and transport failures are retried
/// `retryCount` times, within the request's timeout: the timeout bounds the whole request, retries included (a
/// request that timed out is not sent again); 429 and `Retry-After` are honoured.
struct TokenEndpointClient: Sendable {
    let context: TokenRequestContext

    /// Sends `parameters` to `endpoint`. `throttleKey` identifies the request for back-off purposes.
    func post(_ endpoint: URL, parameters: [(String, String)], extraHeaders: [String: String] = [:],
              throttleKey: String? = nil) async throws -> TokenResponse {
        let response = try await postRaw(endpoint, parameters: parameters, extraHeaders: extraHeaders, throttleKey: throttleKey)
        if (200..<300).contains(response.statusCode) {
            var parsed = try TokenResponse.parse(response.body, correlationId: context.correlationId)
            parsed.serverDate = response.header("Date").flatMap(HTTPDate.parse)
            return parsed
        }
        throw errorFor(response)
    }

    /// Sends the request and returns the final HTTP response (2xx or 4xx); throws for transport failures and
    /// server errors that persisted through the retries.
    func postRaw(_ endpoint: URL, parameters: [(String, String)], extraHeaders: [String: String] = [:],
                 throttleKey: String? = nil) async throws -> MSALHTTPResponse {
        // A cancelled call sends nothing more.
        try Task.checkCancellation()
        let now = context.clock.now()
        if let throttleKey, let blocked = await context.throttle.check(throttleKey, now: now) {
            var error = blocked
            error.correlationId = context.correlationId
            throw error
        }
        var headers = ClientHeaders.tokenRequestHeaders(correlationId: context.correlationId)
        // As MSAL for iOS/macOS's common core on every token request (`MSIDAADRequestConfigurator.m:65`): the client
        // answers PKeyAuth, so a tenant with device-based Conditional Access challenges it instead of refusing.
        if context.deviceAuthentication != nil { headers[PKeyAuthChallenge.advertisingHeader] = PKeyAuthChallenge.advertisingVersion }
        for (name, value) in extraHeaders { headers[name] = value }
        var answeredDeviceChallenge = false
        var request = MSALHTTPRequest(method: "POST", url: endpoint, headers: headers,
                                      body: Data(FormEncoding.encode(parameters).utf8), timeout: context.timeout)
        // The timeout is the longest the caller waits for this request, retries included (real time, as the
        // transport's timeouts are).
        let deadline = ContinuousClock.now + .milliseconds(Int64(min(context.timeout, 1e9) * 1000))
        func remaining() -> TimeInterval {
            let left = deadline - ContinuousClock.now
            return Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
        }
        var attempt = 0
        /// Waits and counts an attempt when another one is allowed: within the retries, and with time left for it.
        func mayRetry(_ reason: String) async throws -> Bool {
            guard attempt < context.retryCount else { return false }
            guard remaining() > context.retryInterval + Self.shortestAttempt else {
                context.log.warning("\(reason); no time is left for a retry within the \(ExternalNumber.clampedInteger(context.timeout)) s timeout.")
                return false
            }
            attempt += 1
            context.log.warning("\(reason); retrying (attempt \(attempt + 1)).")
            try await context.clock.sleep(seconds: context.retryInterval)
            request.timeout = max(remaining(), Self.shortestAttempt)
            return true
        }
        while true {
            let response: MSALHTTPResponse
            do {
                response = try await context.http.send(request)
                    .refusingRedirect("The token endpoint", correlationId: context.correlationId)
            } catch let error as MSALErrorInfo {
                throw error
            } catch where ErrorBoundary.isCancellation(error) || Task.isCancelled {
                throw CancellationError()
            } catch {
                if try await mayRetry("Token request failed to reach the server") { continue }
                throw MSALErrorInfo.transport(error, host: endpoint.host, correlationId: context.correlationId)
            }
            let retryAfter = Self.retryAfter(response, now: context.clock.now())
            if response.statusCode == 429 || (response.statusCode >= 500 && retryAfter != nil) {
                let delay = min(retryAfter ?? ThrottleStore.defaultDelay, ThrottleStore.maximumDelay)
                let error = errorFor(response)
                if let throttleKey {
                    await context.throttle.block(throttleKey, until: context.clock.now().addingTimeInterval(delay), error: error)
                }
                context.log.warning("The token endpoint asked the client to back off for \(ExternalNumber.clampedInteger(delay)) s (HTTP \(response.statusCode)).")
                throw error
            }
            if response.statusCode >= 500 {
                if try await mayRetry("The token endpoint answered HTTP \(response.statusCode)") { continue }
                throw errorFor(response)
            }
            // A PKeyAuth challenge (400 or 401 with `WWW-Authenticate: PKeyAuth …`, `MSIDAADRequestErrorHandler.m:95-121`):
            // the same request again with the device's answer in `Authorization`. Once: a second challenge is the
            // server's answer (MSAL.NET replays once too, `OAuth2/TokenClient.cs:238-256`).
            if response.statusCode == 400 || response.statusCode == 401, !answeredDeviceChallenge,
               let answer = context.deviceAuthentication,
               let header = response.header("WWW-Authenticate"), header.range(of: "PKeyAuth", options: .caseInsensitive) != nil,
               let challenge = PKeyAuthChallenge(wwwAuthenticate: header) {
                answeredDeviceChallenge = true
                context.log.info("The token endpoint asked for the device's proof (PKeyAuth); answering it.")
                request.headers["Authorization"] = answer(challenge, endpoint)
                continue
            }
            return response
        }
    }

    /// A retry is sent only when at least this much of the timeout is left for it, in seconds.
    static let shortestAttempt: TimeInterval = 1

    /// The typed error for a non-2xx response.
    func errorFor(_ response: MSALHTTPResponse) -> MSALErrorInfo {
        if let body = OAuthErrorBody.parse(response.body) {
            var error = body.msalError(httpStatus: response.statusCode, headers: response.headers,
                                       correlationId: context.correlationId)
            if response.statusCode >= 500 || response.statusCode == 429 {
                error.code = .serverError
                error.internalCode = nil
            }
            return error
        }
        return .server("The token endpoint answered HTTP \(response.statusCode) without an OAuth error body.",
                       status: response.statusCode, headers: response.headers,
                       internalCode: response.statusCode >= 500 ? nil : .internalErrorUnexpectedHttpResponse,
                       correlationId: context.correlationId)
    }

    /// `Retry-After` as seconds from now (delta-seconds or an HTTP date), bounded by ``ExternalNumber``; nil when
    /// absent or unreadable.
    static func retryAfter(_ response: MSALHTTPResponse, now: Date) -> TimeInterval? {
        guard let value = response.header("Retry-After")?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = ExternalNumber.retryAfterSeconds(value) { return seconds }
        return HTTPDate.parse(value).map { min(max(0, $0.timeIntervalSince(now)), ExternalNumber.maximumLifetime) }
    }
}
