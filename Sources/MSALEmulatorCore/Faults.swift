import Foundation
import MSALSupport


/// The emulator's endpoints, as named in fault rules.
public enum EmulatorEndpoint: String, Codable, Sendable, CaseIterable {
    /// Every endpoint.
    case any
    /// `GET /common/discovery/instance`.
    case instanceDiscovery = "instance-discovery"
    /// `GET /{tenant}/v2.0/.well-known/openid-configuration`.
    case openIDConfiguration = "openid-configuration"
    /// `GET /{tenant}/discovery/v2.0/keys`.
    case keys
    /// `GET /{tenant}/oauth2/v2.0/authorize` and its pages.
    case authorize
    /// `POST /{tenant}/oauth2/v2.0/token`.
    case token
    /// `POST /{tenant}/oauth2/v2.0/devicecode`.
    case deviceCode = "devicecode"
    /// `/devicelogin`.
    case deviceLogin = "devicelogin"
    /// `GET /{tenant}/oauth2/v2.0/logout`.
    case logout
    /// The Microsoft Graph stand-in (`/v1.0/...`).
    case graph
    /// The managed identity endpoints (App Service `/msi/token`, IMDS, Azure Arc).
    case managedIdentity = "managed-identity"
}

/// A fault to inject into an endpoint's responses, for reliability tests.
///
/// JSON form: `{"endpoint": "token", "status": 503, "retryAfter": 2, "latencyMilliseconds": 100,
/// "malformedBody": false, "dropConnection": false, "count": 1}`; a policy refusal: `{"endpoint": "token", "errorCode": 53003,
/// "error": "access_denied"}`.
public struct FaultRule: Codable, Sendable, Equatable {
    /// Which endpoint the rule applies to.
    public var endpoint: EmulatorEndpoint
    /// Answer with this HTTP status instead of the real answer.
    public var status: Int?
    /// Delay the answer by this many milliseconds.
    public var latencyMilliseconds: Int?
    /// Add a `Retry-After` header with this many seconds.
    public var retryAfter: Int?
    /// Answer with a body that is not valid JSON.
    public var malformedBody: Bool
    /// Close the connection without answering.
    public var dropConnection: Bool
    /// How many requests the rule affects (`nil`: all of them).
    public var count: Int?
    /// Answer with Entra's error of this AADSTS code (HTTP `status`, else 400), as a policy refusal reaches a
    /// client: `error` (else `interaction_required`), `error_description` starting `AADSTS<code>:`, `error_codes`.
    public var errorCode: Int?
    /// The OAuth `error` of an ``errorCode`` answer.
    public var error: String?

    /// Creates a fault rule.
    public init(
        endpoint: EmulatorEndpoint, status: Int? = nil, latencyMilliseconds: Int? = nil, retryAfter: Int? = nil,
        malformedBody: Bool = false, dropConnection: Bool = false, count: Int? = nil, errorCode: Int? = nil,
        error: String? = nil
    ) {
        self.errorCode = errorCode
        self.error = error
        self.endpoint = endpoint
        self.status = status
        self.latencyMilliseconds = latencyMilliseconds
        self.retryAfter = retryAfter
        self.malformedBody = malformedBody
        self.dropConnection = dropConnection
        self.count = count
    }

    enum CodingKeys: String, CodingKey {
        case endpoint, status, latencyMilliseconds, retryAfter, malformedBody, dropConnection, count, errorCode, error
    }

    /// Decodes a rule; `endpoint` is required, everything else optional.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        endpoint = try c.decode(EmulatorEndpoint.self, forKey: .endpoint)
        status = try c.decodeIfPresent(Int.self, forKey: .status)
        latencyMilliseconds = try c.decodeIfPresent(Int.self, forKey: .latencyMilliseconds)
        retryAfter = try c.decodeIfPresent(Int.self, forKey: .retryAfter)
        malformedBody = try c.decodeIfPresent(Bool.self, forKey: .malformedBody) ?? false
        dropConnection = try c.decodeIfPresent(Bool.self, forKey: .dropConnection) ?? false
        count = try c.decodeIfPresent(Int.self, forKey: .count)
        errorCode = try c.decodeIfPresent(Int.self, forKey: .errorCode)
        error = try c.decodeIfPresent(String.self, forKey: .error)
    }

    /// The Entra error answer of an ``errorCode`` rule; nil for other rules.
    package func entraErrorResponse(_ request: EmulatorRequest, clock: EmulatorClock) -> EmulatorResponse? {
        guard let errorCode, (0...9_999_999).contains(errorCode) else { return nil }
        let status = status.flatMap { (400...599).contains($0) ? $0 : nil } ?? 400
        let oauth = error.flatMap { $0.isEmpty ? nil : String($0.prefix(64)) } ?? "interaction_required"
        return EntraError(error: oauth, code: errorCode, message: "Refused by a policy (fault injected by the emulator).",
                          status: status).response(request, clock: clock)
    }
}

/// The active fault rules; each matching request consumes one use of the first matching rule.
package final class FaultTable: Sendable {
    private let rules: LockedBox<[FaultRule]>

    package init(_ rules: [FaultRule]) {
        self.rules = LockedBox(rules)
    }

    package func add(_ rule: FaultRule) {
        rules.withLock { $0.append(rule) }
    }

    package func removeAll() {
        rules.withLock { $0.removeAll() }
    }

    /// The rule to apply to a request for `endpoint`, if any.
    package func take(for endpoint: EmulatorEndpoint) -> FaultRule? {
        rules.withLock { rules in
            guard let index = rules.firstIndex(where: { $0.endpoint == endpoint || $0.endpoint == .any }) else { return nil }
            let rule = rules[index]
            if let count = rule.count {
                if count <= 1 { rules.remove(at: index) } else { rules[index].count = count - 1 }
            }
            return rule
        }
    }
}
