import Foundation

extension EmulatorCore {
    /// `GET /v1.0/me` and `GET /v1.0/users/{id | userPrincipalName}`: the Microsoft Graph stand-in.
    func graph(userPath: String?, _ request: EmulatorRequest) -> EmulatorResponse {
        let requestId = UUID().uuidString.lowercased()
        func failure(_ status: Int, _ code: String, _ message: String, challenge: String? = nil) -> EmulatorResponse {
            let formatter = ISO8601DateFormatter()
            var headers: [(String, String)] = [("request-id", requestId), ("client-request-id", request.correlationId)]
            if let challenge {
                headers.append(("WWW-Authenticate", "Bearer realm=\"\", authorization_uri=\"\(request.baseURL)/common/oauth2/authorize\", client_id=\"\(EmulatorConfiguration.graphAppId)\"\(challenge)"))
            }
            return .json([
                "error": [
                    "code": code, "message": message,
                    "innerError": ["date": formatter.string(from: now), "request-id": requestId, "client-request-id": request.correlationId],
                ],
            ], status: status, headers: headers)
        }
        guard let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer ") else {
            return failure(401, "InvalidAuthenticationToken", "Access token is empty.", challenge: "")
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        guard let claims = keys.verify(token) else {
            return failure(401, "InvalidAuthenticationToken", "IDX14100: JWT is not well formed, or its signature is invalid.", challenge: ", error=\"invalid_token\"")
        }
        let audience = claims["aud"] as? String ?? ""
        guard audience == EmulatorConfiguration.graphResource || audience == EmulatorConfiguration.graphAppId
            || audience == "\(EmulatorConfiguration.graphResource)/" else {
            return failure(401, "InvalidAuthenticationToken", "Invalid audience.", challenge: ", error=\"invalid_token\"")
        }
        guard let exp = claims["exp"] as? Int, Double(exp) > now.timeIntervalSince1970 else {
            return failure(401, "InvalidAuthenticationToken", "Lifetime validation failed, the token is expired.", challenge: ", error=\"invalid_token\"")
        }
        let scopes = Set((claims["scp"] as? String ?? "").split(separator: " ").map(String.init))
        guard let callerId = claims["oid"] as? String, let caller = user(id: callerId) else {
            return failure(401, "InvalidAuthenticationToken", "The token has no valid user.", challenge: ", error=\"invalid_token\"")
        }
        let target: EmulatedUser
        if let userPath, userPath.lowercased() != caller.objectId, userPath.lowercased() != caller.username.lowercased() {
            guard !scopes.isDisjoint(with: ["User.ReadBasic.All", "User.Read.All"]) else {
                return failure(403, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
            }
            guard let found = user(id: userPath.lowercased()) ?? user(named: userPath) else {
                return failure(404, "Request_ResourceNotFound", "Resource '\(userPath)' does not exist or one of its queried reference-property objects are not present.")
            }
            target = found
        } else {
            guard !scopes.isDisjoint(with: ["User.Read", "User.ReadBasic.All", "User.Read.All"]) else {
                return failure(403, "Authorization_RequestDenied", "Insufficient privileges to complete the operation.")
            }
            target = caller
        }
        let null = NSNull()
        return .json([
            "@odata.context": "\(request.baseURL)/v1.0/$metadata#users/$entity",
            "businessPhones": [String](),
            "displayName": target.displayName,
            "givenName": target.givenName ?? null,
            "jobTitle": target.jobTitle ?? null,
            "mail": target.mail ?? target.username,
            "mobilePhone": null,
            "officeLocation": null,
            "preferredLanguage": "en-US",
            "surname": target.surname ?? null,
            "userPrincipalName": target.username,
            "id": target.objectId,
        ], headers: [("request-id", requestId), ("client-request-id", request.correlationId)])
    }
}
