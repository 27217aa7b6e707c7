import MSALSupport
package import Foundation

/// The Microsoft identity broker, emulated: the answer to each method of `com.microsoft.identity.Broker1` in the
/// shapes Microsoft's broker writes (msalruntime's serializer): integer milliseconds, `grantedScopes` a string, the
/// raw id token, base64url `clientInfo`, errors as JSON with the broker's status numbers. Tokens it issues carry the
/// device id and pass the tenants' Conditional Access (``EmulatedConditionalAccess``).
extension EmulatorCore {
    /// The largest request a broker call accepts.
    static let brokerRequestLimit = 1 << 20
    /// The broker version this emulation reports (`getLinuxBrokerVersion`).
    package static let brokerVersion = "2.0.4-emulator"

    /// Answers one broker call: `method` with its request JSON, for tokens issued under `issuerBase` (the emulator's
    /// base URL, which names the issuer and the accounts' environment). `approve` decides interactive sign-ins
    /// (default: the auto-approve user). Nil for a method the broker does not have (a D-Bus `UnknownMethod`).
    package func brokerAnswer(_ method: String, correlationId: String, request: Data, issuerBase: String,
                              approve: EmulatedBrokerApprover? = nil) async -> Data? {
        let tokenMethod = ["acquireTokenSilently", "acquireTokenInteractively"].contains(method)
        do {
            guard request.count <= Self.brokerRequestLimit,
                  let object = (try? JSONSerialization.jsonObject(with: request)) as? [String: Any] else {
                throw BrokerFailure(status: BrokerFailure.apiContractViolation, errorCode: 0,
                                    context: "The request is not a JSON object.")
            }
            let answer: [String: Any]
            switch method {
            case "getAccounts":
                answer = ["accounts": broker.accounts.compactMap { user(id: $0.userId) }.map { brokerAccount($0, issuerBase) }]
            case "acquireTokenSilently":
                answer = ["brokerTokenResponse": try brokerSilent(object, issuerBase: issuerBase)]
            case "acquireTokenInteractively":
                answer = ["brokerTokenResponse": try await brokerInteractive(object, correlationId: correlationId,
                                                                             issuerBase: issuerBase, approve: approve)]
            case "signOutSilently", "removeAccount":
                let parameters = object["authParameters"] as? [String: Any] ?? object
                let user = try brokerUser(parameters["account"], required: true)!
                broker.accounts.removeAll { $0.userId == user.objectId }
                refreshTokens = refreshTokens.filter { $0.value.deviceId == nil || $0.value.userId != user.objectId }
                answer = method == "removeAccount" ? [:] : ["isSignOutComplete": true]
            case "getLinuxBrokerVersion":
                answer = ["linuxBrokerVersion": Self.brokerVersion]
            case "acquirePrtSsoCookie":
                answer = try brokerSSOCookie(object, issuerBase: issuerBase)
            case "generateSignedHttpRequest":
                answer = try brokerSignedHTTPRequest(object)
            case "cancelInteractiveFlow":
                if broker.cancelled.count < 64 { broker.cancelled.insert(correlationId.lowercased()) }
                answer = [:]
            default:
                return nil
            }
            return Self.brokerJSON(answer)
        } catch let failure as BrokerFailure {
            return Self.brokerJSON(tokenMethod ? ["brokerTokenResponse": ["error": failure.json()]] : ["error": failure.json()])
        } catch let error as EntraError {
            let failure = BrokerFailure(error)
            return Self.brokerJSON(tokenMethod ? ["brokerTokenResponse": ["error": failure.json()]] : ["error": failure.json()])
        } catch {
            let failure = BrokerFailure(status: 0, errorCode: 0, context: "The broker could not answer.")
            return Self.brokerJSON(tokenMethod ? ["brokerTokenResponse": ["error": failure.json()]] : ["error": failure.json()])
        }
    }

    static func brokerJSON(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    /// An account object (msalruntime's `AccountToJson`, every key).
    func brokerAccount(_ user: EmulatedUser, _ issuerBase: String) -> [String: Any] {
        [
            "homeAccountId": "\(user.objectId).\(user.homeTenantId)", "environment": Self.environment(of: issuerBase),
            "realm": user.homeTenantId, "localAccountId": user.objectId, "username": user.username,
            "givenName": user.givenName ?? "", "familyName": user.surname ?? "", "middleName": "",
            "name": user.displayName, "alternativeAccountId": "", "clientInfo": clientInfo(user: user, policy: nil),
            "passwordExpiry": 0, "passwordChangeUrl": "", "homeEnvironment": Self.environment(of: issuerBase),
        ]
    }

    /// The origin an authority URL names when it names its port (what tokens then name as their issuer); nil without
    /// a port (Microsoft's broker client drops it), when the emulator's own HTTPS base is named instead.
    static func origin(ofAuthority url: URL) -> String? {
        url.port.flatMap { port in url.host.map { "\(url.scheme ?? "https")://\($0):\(port)" } }
    }

    static func environment(of base: String) -> String {
        guard let components = URLComponents(string: base), let host = components.host else { return base }
        return components.port.map { "\(host):\($0)" } ?? host
    }

    /// The signed-in user an account object names (by its object id or home account id); nil for no account when
    /// not `required`.
    func brokerUser(_ value: Any?, required: Bool) throws -> EmulatedUser? {
        guard let account = value as? [String: Any] else {
            if required {
                throw BrokerFailure(status: BrokerFailure.apiContractViolation, errorCode: 0, context: "The request names no account.")
            }
            return nil
        }
        let local = (account["localAccountId"] as? String) ?? ""
        let home = (account["homeAccountId"] as? String) ?? ""
        let objectId = local.isEmpty ? String(home.split(separator: ".").first ?? "") : local
        guard let user = user(id: objectId.lowercased()), broker.signedIn(user.objectId) != nil else {
            throw BrokerFailure(status: BrokerFailure.accountNotFound, errorCode: 0,
                                context: "Account with id '\(objectId.prefix(64))' not found on this device.")
        }
        return user
    }
}
