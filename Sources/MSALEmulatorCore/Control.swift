import Foundation

extension EmulatorCore {
    /// Emulator-only control endpoints (not part of Entra), for tests driving an out-of-process emulator:
    /// - `POST /_emulator/clock/advance?seconds=N` moves the emulated clock: what was issued before is N seconds
    ///   older (see ``EmulatorClock``); answers the emulated time `now` and the total `offset`;
    /// - `POST /_emulator/keys/rotate[?retire=true]` rotates the signing key;
    /// - `POST /_emulator/faults` (JSON ``FaultRule``) adds a fault, `DELETE /_emulator/faults` clears them;
    /// - `POST /_emulator/refresh-tokens/revoke` revokes every refresh token;
    /// - `POST /_emulator/revoke?user=NAME[&refresh_tokens=true]` revokes a user's session (continuous access
    ///   evaluation, see `ContinuousAccess.swift`);
    /// - `POST /_emulator/applications/{clientId}/certificates` (a PEM certificate as the body) registers a client
    ///   certificate and answers its thumbprints `{"x5t#S256": "...", "x5t": "..."}`;
    /// - `POST /_emulator/federated-tokens` (JSON `{"subject": ..., "audience": ..., "lifetime": ...}`) mints a token
    ///   of the emulator's federated issuer, for workload identity;
    /// - `GET /_emulator/stats` answers the token requests received per grant type
    ///   (`{"token_requests": {"refresh_token": 3}, "claims_challenge_answers": 1}`), `DELETE /_emulator/stats` sets
    ///   them to zero;
    /// - `GET /_emulator/config` returns the configuration, passwords and client secrets left out unless
    ///   `?secrets=true` asks for them.
    ///
    /// A page in the developer's browser must not drive these: a request is refused (403) unless it names the
    /// emulator by a loopback address (`127.0.0.1`, `localhost`, `[::1]`: a name that DNS rebinding pointed here is
    /// not one), and a change unless no other site sent it (a browser's `Origin` and `Sec-Fetch-Site`).
    func control(_ path: [String], _ request: EmulatorRequest) throws -> EmulatorResponse {
        if let refusal = Self.controlRefusal(request) {
            return .json(["error": "forbidden", "error_description": refusal], status: 403)
        }
        switch (request.method, path) {
        case ("POST", ["clock", "advance"]):
            guard let seconds = request.parameter("seconds").flatMap(Double.init), seconds.isFinite, abs(seconds) < 1e9 else {
                return .json(["error": "invalid_request", "error_description": "seconds must be a number"], status: 400)
            }
            clock.advance(by: seconds)
            return .json(["now": Int(now.timeIntervalSince1970), "offset": clock.offset])
        case ("POST", ["keys", "rotate"]):
            try keys.rotate(retireOld: request.parameter("retire") == "true")
            return .json(["kid": keys.activeKeyId])
        case ("POST", ["faults"]):
            guard let rule = try? JSONDecoder().decode(FaultRule.self, from: request.rawBody) else {
                return .json(["error": "invalid_request", "error_description": "body must be a fault rule"], status: 400)
            }
            faults.add(rule)
            return .json(["ok": true])
        case ("DELETE", ["faults"]):
            faults.removeAll()
            return .json(["ok": true])
        case ("POST", ["refresh-tokens", "revoke"]):
            revokeRefreshTokens(userId: nil)
            return .json(["ok": true])
        case ("POST", let path) where path.count == 3 && path[0] == "applications" && path[2] == "certificates":
            let pem = String(decoding: request.rawBody, as: UTF8.self)
            do {
                guard let thumbprints = try registerCertificate(pem, clientId: path[1]) else {
                    return .json(["error": "not_found", "error_description": "No application with client id '\(path[1].prefix(64))'."], status: 404)
                }
                return .json(["x5t#S256": thumbprints.x5tS256, "x5t": thumbprints.x5t])
            } catch {
                return .json(["error": "invalid_request", "error_description": error.description], status: 400)
            }
        case ("POST", ["federated-tokens"]):
            return try federatedTokenControl(request)
        case ("POST", ["revoke"]):
            return revokeSessionControl(request)
        case ("GET", ["native-auth", "codes"]):
            return sentCodesControl(request)
        case ("GET", ["stats"]):
            return .json(["token_requests": grantCounts, "claims_challenge_answers": claimsChallengeAnswers])
        case ("DELETE", ["stats"]):
            grantCounts.removeAll()
            claimsChallengeAnswers = 0
            return .json(["ok": true])
        case ("GET", ["config"]):
            var shown = config
            if request.parameter("secrets") != "true" {
                for index in shown.users.indices { shown.users[index].password = "" }
                for index in shown.applications.indices where shown.applications[index].clientSecret != nil {
                    shown.applications[index].clientSecret = ""
                }
            }
            let data = try JSONEncoder().encode(shown)
            return EmulatorResponse(status: 200, headers: [("Content-Type", "application/json")], body: data)
        default:
            return .notFound()
        }
    }

    /// Why a control request is refused, or nil: the names of this machine's loopback interface.
    static func controlRefusal(_ request: EmulatorRequest) -> String? {
        // The Host header as sent (not the sanitised host, which falls back to 127.0.0.1 for a name it does not take).
        guard isLoopback(hostName(request.headers["host"] ?? request.host)) else {
            return "The control API answers only requests addressed to 127.0.0.1, localhost or [::1]."
        }
        guard request.method != "GET" else { return nil }
        if let site = request.headers["sec-fetch-site"]?.lowercased(), site != "same-origin", site != "none" {
            return "The control API takes no changes sent by another site."
        }
        if let origin = request.headers["origin"], !isLoopback(URLComponents(string: origin)?.host ?? "") {
            return "The control API takes no changes sent by another site."
        }
        return nil
    }

    /// `host` of `host:port` (`[::1]:port` keeps its brackets off).
    private static func hostName(_ host: String) -> String {
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { return String(host[host.index(after: host.startIndex)..<close]) }
        return String(host.split(separator: ":", maxSplits: 1).first ?? "")
    }

    private static func isLoopback(_ name: String) -> Bool {
        let lowered = name.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return lowered == "localhost" || lowered == "::1" || lowered.hasPrefix("127.")
    }
}
