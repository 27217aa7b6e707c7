import Foundation

extension EmulatorCore {
    /// Emulator-only control endpoints (not part of Entra), for tests driving an out-of-process emulator:
    /// - `POST /_emulator/clock/advance?seconds=N` moves the emulated clock;
    /// - `POST /_emulator/keys/rotate[?retire=true]` rotates the signing key;
    /// - `POST /_emulator/faults` (JSON ``FaultRule``) adds a fault, `DELETE /_emulator/faults` clears them;
    /// - `POST /_emulator/refresh-tokens/revoke` revokes every refresh token;
    /// - `GET /_emulator/config` returns the configuration.
    func control(_ path: [String], _ request: EmulatorRequest) throws -> EmulatorResponse {
        switch (request.method, path) {
        case ("POST", ["clock", "advance"]):
            guard let seconds = request.parameter("seconds").flatMap(Double.init), seconds.isFinite, abs(seconds) < 1e9 else {
                return .json(["error": "invalid_request", "error_description": "seconds must be a number"], status: 400)
            }
            clock.advance(by: seconds)
            return .json(["now": Int(now.timeIntervalSince1970)])
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
        case ("GET", ["config"]):
            let data = try JSONEncoder().encode(config)
            return EmulatorResponse(status: 200, headers: [("Content-Type", "application/json")], body: data)
        default:
            return .notFound()
        }
    }
}
