import Foundation

/// Validates authorities and fetches their OpenID metadata, once per authority for the application that owns it
/// (each application has its own resolver: nothing it learns is shared with another application).
///
/// Successful resolutions are kept for the life of the resolver; failures are not, so the next call retries.
/// Concurrent resolutions of the same authority share one fetch. Instance discovery answers are kept per host, so
/// that a second tenant on a validated host costs only its metadata request, and so that
/// ``aliases(forEnvironment:)`` can answer from what has been discovered so far.
actor AuthorityResolver {
    private struct Key: Hashable {
        var kind: AuthorityKind
        var url: String
        var trusted: Bool
    }

    private var resolved: [Key: ResolvedAuthority] = [:]
    private var inFlight: [Key: Task<ResolvedAuthority, any Error>] = [:]
    /// Alias groups from instance discovery, by each of their hosts.
    private var aliasGroups: [String: InstanceDiscoveryEntry] = [:]
    /// Hosts instance discovery has accepted.
    private var validatedHosts: Set<String> = []
    /// The callers waiting for a fetch now, the one that started it included (what tests wait on to know that
    /// concurrent callers have joined).
    private(set) var callers = 0

    /// Creates an empty resolver.
    init() {}

    /// Resolves `authority`: validates it (AAD through instance discovery unless it is in `knownAuthorities`;
    /// B2C only through `knownAuthorities`; CIAM never), then fetches its OpenID metadata.
    ///
    /// - Throws: ``MSALInternalError/internalErrorFailedAuthorityValidation`` when the authority is not valid,
    ///   ``MSALInternalError/internalErrorInvalidResponse`` for unusable metadata, ``MSALError/serverError`` for
    ///   HTTP 5xx answers and transport failures.
    func resolve(_ authority: AuthorityDescriptor, knownAuthorities: [AuthorityDescriptor], http: any MSALHTTPClient,
                 correlationId: UUID, timeout: TimeInterval) async throws -> ResolvedAuthority {
        let trusted = knownAuthorities.contains { known in
            known.kind == authority.kind && known.host.lowercased() == authority.host.lowercased() && known.port == authority.port
        }
        let key = Key(kind: authority.kind, url: authority.urlString.lowercased(), trusted: trusted)
        if let done = resolved[key] { return done }
        callers += 1
        defer { callers -= 1 }
        if let running = inFlight[key] { return try await running.value }

        let task = Task {
            try await self.fetch(authority, trusted: trusted, http: http, correlationId: correlationId, timeout: timeout)
        }
        inFlight[key] = task
        do {
            let result = try await task.value
            resolved[key] = result
            inFlight[key] = nil
            return result
        } catch {
            inFlight[key] = nil
            throw error
        }
    }

    /// The hosts known to name the same cloud as `environment`, from instance discovery so far; just
    /// `[environment]` when nothing is known about it.
    func aliases(forEnvironment environment: String) -> [String] {
        aliasGroups[environment.lowercased()]?.aliases ?? [environment]
    }

    // MARK: - Fetching

    private func fetch(_ authority: AuthorityDescriptor, trusted: Bool, http: any MSALHTTPClient,
                       correlationId: UUID, timeout: TimeInterval) async throws -> ResolvedAuthority {
        let context = RequestContext(http: http, correlationId: correlationId, timeout: timeout)
        var entry: InstanceDiscoveryEntry?
        switch authority.kind {
        case .b2c:
            guard trusted else {
                throw MSALErrorInfo.internal(
                    .internalErrorFailedAuthorityValidation,
                    "The B2C authority \(authority.urlString) cannot be validated. Add it to knownAuthorities.",
                    correlationId: correlationId)
            }
        case .ciam:
            break
        case .aad:
            entry = try await discover(authority, trusted: trusted, context: context)
        }
        let metadata = try await fetchMetadata(authority, context: context)
        let host = authority.host
        if authority.isLoopback {
            // A loopback authority answers its own discovery: it names only itself, whatever it claims, so that a
            // local server can never file its tokens under (or read those of) a real cloud.
            return ResolvedAuthority(descriptor: authority, metadata: metadata, cacheEnvironment: host,
                                     aliases: [host], preferredNetwork: host)
        }
        var aliases = entry?.aliases ?? [host]
        if !aliases.contains(host) { aliases.insert(host, at: 0) }
        return ResolvedAuthority(descriptor: authority, metadata: metadata,
                                 cacheEnvironment: entry?.preferredCache ?? host, aliases: aliases,
                                 preferredNetwork: entry?.preferredNetwork ?? host)
    }

    /// Runs instance discovery for an AAD authority (once per host). Returns the alias group of the host, or nil
    /// when discovery lists none (or failed for a trusted authority).
    private func discover(_ authority: AuthorityDescriptor, trusted: Bool,
                          context: RequestContext) async throws -> InstanceDiscoveryEntry? {
        let host = authority.host.lowercased()
        if validatedHosts.contains(host) { return aliasGroups[host] }
        let answer: InstanceDiscovery.Answer
        do {
            let response = try await context.get(InstanceDiscovery.url(for: authority), what: "Instance discovery")
            answer = try InstanceDiscovery.parse(statusCode: response.statusCode, body: response.body)
        } catch {
            if trusted && !(error is CancellationError) { return nil }
            throw error
        }
        switch answer {
        case .invalid(let code, let description):
            if trusted { return nil }
            var error = MSALErrorInfo.internal(
                .internalErrorFailedAuthorityValidation,
                "The authority \(authority.urlString) is not a valid Microsoft Entra authority: "
                    + (description ?? code),
                correlationId: context.correlationId)
            error.oauthError = code
            throw error
        case .valid(let entries):
            if authority.isLoopback {
                // Self-answered: remember only that the host itself is valid, never the aliases it claims.
                validatedHosts.insert(host)
                return nil
            }
            for entry in entries {
                for alias in entry.aliases {
                    aliasGroups[alias] = entry
                    validatedHosts.insert(alias)
                }
            }
            validatedHosts.insert(host)
            return aliasGroups[host]
        }
    }

    private func fetchMetadata(_ authority: AuthorityDescriptor, context: RequestContext) async throws -> OpenIDMetadata {
        guard let url = URL(string: authority.urlString + "/v2.0/.well-known/openid-configuration") else {
            throw MSALErrorInfo.invalidParameter("The authority URL \(authority.urlString) is not valid.")
        }
        let response = try await context.get(url, what: "The OpenID configuration request")
        switch response.statusCode {
        case 200:
            return try OpenIDMetadata(json: response.body)
        case 400..<500:
            let body = JSONValue.parseObject(response.body)
            var error = MSALErrorInfo.internal(
                .internalErrorFailedAuthorityValidation,
                "The OpenID configuration of \(authority.urlString) could not be fetched (HTTP \(response.statusCode))"
                    + (body?["error_description"]?.stringValue.map { ": \($0)" } ?? "."),
                correlationId: context.correlationId)
            error.oauthError = body?["error"]?.stringValue
            error.httpStatusCode = response.statusCode
            throw error
        default:
            var error = MSALErrorInfo.internal(
                .internalErrorUnexpectedHttpResponse,
                "The OpenID configuration request answered HTTP \(response.statusCode).",
                correlationId: context.correlationId)
            error.httpStatusCode = response.statusCode
            throw error
        }
    }
}

/// What every resolver request needs: the transport, the correlation id, the timeout.
struct RequestContext: Sendable {
    var http: any MSALHTTPClient
    var correlationId: UUID
    var timeout: TimeInterval

    /// Sends a GET. Transport failures and HTTP 5xx become ``MSALError/serverError``; other statuses are returned.
    func get(_ url: URL, what: String) async throws -> MSALHTTPResponse {
        let request = MSALHTTPRequest(method: "GET", url: url, headers: [
            "Accept": "application/json",
            "client-request-id": correlationId.uuidString,
            "return-client-request-id": "true",
        ], timeout: timeout)
        let response: MSALHTTPResponse
        do {
            response = try await http.send(request)
        } catch let error where ErrorBoundary.isCancellation(error) {
            throw CancellationError()
        } catch {
            throw MSALErrorInfo.transport(error, host: url.host, correlationId: correlationId)
        }
        _ = try response.refusingRedirect(what, correlationId: correlationId)
        if response.statusCode >= 500 {
            var error = MSALErrorInfo(.serverError, description: "\(what) to \(url.host ?? "the server") answered HTTP \(response.statusCode).",
                                      correlationId: correlationId)
            error.httpStatusCode = response.statusCode
            error.httpHeaders = response.headers
            throw error
        }
        return response
    }
}
