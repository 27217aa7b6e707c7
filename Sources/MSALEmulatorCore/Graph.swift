import Foundation

/// Who calls the Graph stand-in: a user through a delegated token (with its `scp`) or an app through an app-only
/// token (with its `roles`).
enum GraphCaller {
    case user(EmulatedUser, tenantId: String, scopes: Set<String>)
    case app(tenantId: String, roles: Set<String>)
}

extension EmulatorCore {
    static let graphReadOthersScopes: Set<String> = ["User.ReadBasic.All", "User.Read.All", "User.ReadWrite.All", "Directory.Read.All"]
    static let graphReadUsersRoles: Set<String> = ["User.Read.All", "User.ReadWrite.All", "Directory.Read.All", "Directory.ReadWrite.All"]

    /// A Graph error body (`{"error": {"code", "message", "innerError"}}`), with a Bearer challenge for 401s.
    func graphFailure(_ request: EmulatorRequest, _ status: Int, _ code: String, _ message: String, challenge: String? = nil) -> EmulatorResponse {
        let requestId = UUID().uuidString.lowercased()
        var headers: [(String, String)] = [("request-id", requestId), ("client-request-id", request.correlationId)]
        if let challenge {
            headers.append(("WWW-Authenticate", "Bearer realm=\"\", authorization_uri=\"\(request.baseURL)/common/oauth2/authorize\", client_id=\"\(EmulatorConfiguration.graphAppId)\"\(challenge)"))
        }
        return .json([
            "error": [
                "code": code, "message": message,
                "innerError": ["date": ISO8601DateFormatter().string(from: now), "request-id": requestId, "client-request-id": request.correlationId],
            ],
        ], status: status, headers: headers)
    }

    func graphFailure(_ request: EmulatorRequest, _ rejection: GraphRejection) -> EmulatorResponse {
        var response = graphFailure(request, rejection.status, rejection.code, rejection.message, challenge: rejection.challenge)
        if let nonce = rejection.popNonce { response.headers.append(("WWW-Authenticate", "PoP nonce=\"\(nonce)\"")) }
        return response
    }

    /// A new server nonce for proof-of-possession requests, accepted for 5 minutes.
    func issuePoPNonce() -> String {
        popNonces = popNonces.filter { $0.value > now }
        if popNonces.count >= Self.maxEntries { popNonces.removeAll() }
        let nonce = Base64URL.random(bytes: 24)
        popNonces[nonce] = now.addingTimeInterval(SignedRequestValidation.lifetime)
        return nonce
    }

    /// Validates the bearer token of a Graph request: signature, audience, lifetime; then who it speaks for.
    func graphCaller(_ request: EmulatorRequest) -> Result<GraphCaller, GraphRejection> {
        let invalid = ", error=\"invalid_token\""
        let header = request.headers["authorization"] ?? ""
        let claims: [String: Any]
        if header.lowercased().hasPrefix("pop ") {
            // Proof of possession: the signed request checked by Microsoft's validator's rules, then its token.
            let path = "/" + request.segments.joined(separator: "/")
            let checked: (accessToken: String, claims: [String: Any], nonce: String?)
            do {
                checked = try SignedRequestValidation.validate(
                    String(header.dropFirst(4)).trimmingCharacters(in: .whitespaces), method: request.method,
                    host: request.host, path: path, now: now, accessTokenClaims: { [keys] in keys.verify($0) })
            } catch {
                return .failure(GraphRejection(status: 401, code: "InvalidAuthenticationToken", message: error.message,
                                               challenge: invalid))
            }
            // A resource that issues nonces takes only its own, each while it lasts.
            if config.requiresPoPServerNonce {
                guard let nonce = checked.nonce, let until = popNonces[nonce], until > now else {
                    return .failure(GraphRejection(status: 401, code: "InvalidAuthenticationToken",
                                                   message: "The signed request does not carry a nonce this resource issued.",
                                                   challenge: invalid, popNonce: issuePoPNonce()))
                }
            }
            claims = checked.claims
        } else {
            guard header.lowercased().hasPrefix("bearer ") else {
                return .failure(GraphRejection(status: 401, code: "InvalidAuthenticationToken", message: "Access token is empty.", challenge: ""))
            }
            let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            guard let verified = keys.verify(token) else {
                return .failure(GraphRejection(status: 401, code: "InvalidAuthenticationToken", message: "IDX14100: JWT is not well formed, or its signature is invalid.", challenge: invalid))
            }
            // A token bound to a key is useless without it: sent as a bearer token, it is refused.
            guard verified["cnf"] == nil else {
                return .failure(GraphRejection(status: 401, code: "InvalidAuthenticationToken",
                                               message: "The token is bound to a key (cnf): send it in a signed request (PoP).", challenge: invalid))
            }
            claims = verified
        }
        let audience = claims["aud"] as? String ?? ""
        guard audience == EmulatorConfiguration.graphResource || audience == EmulatorConfiguration.graphAppId
            || audience == "\(EmulatorConfiguration.graphResource)/" else {
            return .failure(GraphRejection(status: 401, code: "InvalidAuthenticationToken", message: "Invalid audience.", challenge: invalid))
        }
        guard let exp = claims["exp"] as? Int, isCurrent(exp: Double(exp), nbf: nil, tokenId: claims["uti"] as? String) else {
            return .failure(GraphRejection(status: 401, code: "InvalidAuthenticationToken", message: "Lifetime validation failed, the token is expired.", challenge: invalid))
        }
        let tenantId = claims["tid"] as? String ?? ""
        if claims["idtyp"] as? String == "app" {
            return .success(.app(tenantId: tenantId, roles: Set(claims["roles"] as? [String] ?? [])))
        }
        guard let callerId = claims["oid"] as? String, let caller = user(id: callerId) else {
            return .failure(GraphRejection(status: 401, code: "InvalidAuthenticationToken", message: "The token has no valid user.", challenge: invalid))
        }
        if let rejection = revocationRejection(claims, userId: caller.objectId) { return .failure(rejection) }
        let scopes = Set((claims["scp"] as? String ?? "").split(separator: " ").map(String.init))
        return .success(.user(caller, tenantId: tenantId, scopes: scopes))
    }

    /// `GET /v1.0/me` and `GET /v1.0/users/{id | userPrincipalName}`: the Microsoft Graph stand-in.
    func graph(userPath: String?, _ request: EmulatorRequest) -> EmulatorResponse {
        let caller: GraphCaller
        switch graphCaller(request) {
        case .success(let found): caller = found
        case .failure(let rejection): return graphFailure(request, rejection)
        }
        let denied = graphFailure(request, 403, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
        let target: EmulatedUser
        switch caller {
        case .app(let tenantId, let roles):
            guard let userPath else {
                return graphFailure(request, 400, "BadRequest", "/me request is only valid with delegated authentication flow.")
            }
            guard !roles.isDisjoint(with: EmulatorCore.graphReadUsersRoles) else { return denied }
            guard let found = user(id: userPath.lowercased()) ?? user(named: userPath), isMember(found, of: tenantId) else {
                return notFound(userPath, request)
            }
            target = found
        case .user(let me, _, let scopes):
            if let userPath, userPath.lowercased() != me.objectId, userPath.lowercased() != me.username.lowercased() {
                guard !scopes.isDisjoint(with: EmulatorCore.graphReadOthersScopes) else { return denied }
                guard let found = user(id: userPath.lowercased()) ?? user(named: userPath) else { return notFound(userPath, request) }
                target = found
            } else {
                guard !scopes.isDisjoint(with: EmulatorCore.graphReadOthersScopes.union(["User.Read"])) else { return denied }
                target = me
            }
        }
        var body = graphUserJSON(target)
        body["@odata.context"] = "\(request.baseURL)/v1.0/$metadata#users/$entity"
        return .json(body, headers: [("request-id", UUID().uuidString.lowercased()), ("client-request-id", request.correlationId)])
    }

    /// `GET /v1.0/users`: the users of the token's tenant (members and guests), for an app with `User.Read.All`
    /// (or another directory-read role) or a user with `User.ReadBasic.All`/`User.Read.All`; paged by `$top` with
    /// `@odata.nextLink`, counted by `$count=true` with `ConsistencyLevel: eventual` (``graphPage(_:collection:_:)``).
    func graphUsers(_ request: EmulatorRequest) -> EmulatorResponse {
        let tenantId: String
        switch graphCaller(request) {
        case .failure(let rejection): return graphFailure(request, rejection)
        case .success(.app(let tenant, let roles)):
            guard !roles.isDisjoint(with: EmulatorCore.graphReadUsersRoles) else {
                return graphFailure(request, 403, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
            }
            tenantId = tenant
        case .success(.user(_, let tenant, let scopes)):
            guard !scopes.isDisjoint(with: EmulatorCore.graphReadOthersScopes) else {
                return graphFailure(request, 403, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
            }
            tenantId = tenant
        }
        let members = config.users.filter { isMember($0, of: tenantId) }.map(graphUserJSON)
        return graphPage(members, collection: "users", request)
    }

    func isMember(_ user: EmulatedUser, of tenantId: String) -> Bool {
        user.homeTenantId == tenantId || user.guestOf.contains(tenantId)
    }

    func notFound(_ userPath: String, _ request: EmulatorRequest) -> EmulatorResponse {
        graphFailure(request, 404, "Request_ResourceNotFound", "Resource '\(userPath.prefix(256))' does not exist or one of its queried reference-property objects are not present.")
    }

    /// A user as Graph's default `$select` shows it.
    func graphUserJSON(_ user: EmulatedUser) -> [String: Any] {
        let null = NSNull()
        return [
            "businessPhones": [String](),
            "displayName": user.displayName,
            "givenName": user.givenName ?? null,
            "jobTitle": user.jobTitle ?? null,
            "mail": user.mail ?? user.username,
            "mobilePhone": null,
            "officeLocation": null,
            "preferredLanguage": "en-US",
            "surname": user.surname ?? null,
            "userPrincipalName": user.username,
            "id": user.objectId,
        ]
    }
}

/// Why Graph refused a token.
struct GraphRejection: Error {
    var status: Int
    var code: String
    var message: String
    var challenge: String?
    /// A server nonce to sign into the next proof-of-possession request (`WWW-Authenticate: PoP nonce="…"`).
    var popNonce: String? = nil
}
