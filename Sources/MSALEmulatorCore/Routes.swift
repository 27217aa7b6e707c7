import Foundation

/// A tenant segment (and B2C policy) as written in a request path.
package struct TenantReference: Sendable, Equatable {
    var segment: String
    var policy: String?
    var tfp: Bool
}

/// What a request path addresses.
package enum Route: Sendable, Equatable {
    case instanceDiscovery
    case openIDConfiguration(TenantReference)
    case keys(TenantReference)
    case authorize(TenantReference)
    case token(TenantReference)
    case deviceCode(TenantReference)
    case logout(TenantReference)
    /// A web view's answer to a PKeyAuth challenge (`/common/DeviceAuthPKeyAuth`).
    case deviceAuthPKeyAuth(TenantReference)
    /// Native authentication (Microsoft Entra External ID): `initiate`, `challenge`.
    case nativeAuth(TenantReference, NativeAuthEndpoint)
    /// Form posts from the sign-in, account-picker and consent pages.
    case login
    case deviceLogin
    case graphMe
    case graphUsers
    case graphUser(String)
    case graphTodoLists
    /// A managed identity token endpoint (`/msi/token`, `/metadata/identity/oauth2/token`, `/arc/...`).
    case managedIdentity(ManagedIdentityProtocol)
    /// Azure Resource Manager's endpoint discovery, tenants and subscriptions (what `az login` uses).
    case resourceManagerEndpoints
    case resourceManagerTenants
    case resourceManagerSubscriptions
    case resourceManagerSubscription(String)
    /// The emulator's own OpenID Connect issuer for workload identity tokens.
    case federatedIssuerConfiguration
    case federatedIssuerKeys
    /// Emulator-only control endpoints under `/_emulator/`.
    case control([String])
    case home
    case notFound

    /// The endpoint name used by fault rules.
    package var endpoint: EmulatorEndpoint? {
        switch self {
        case .instanceDiscovery: .instanceDiscovery
        case .openIDConfiguration: .openIDConfiguration
        case .keys: .keys
        case .authorize, .login, .deviceAuthPKeyAuth: .authorize
        case .token: .token
        case .deviceCode: .deviceCode
        case .deviceLogin: .deviceLogin
        case .logout: .logout
        case .graphMe, .graphUsers, .graphUser, .graphTodoLists: .graph
        case .managedIdentity: .managedIdentity
        case .resourceManagerEndpoints, .resourceManagerTenants, .resourceManagerSubscriptions, .resourceManagerSubscription,
             .federatedIssuerConfiguration, .federatedIssuerKeys, .nativeAuth, .control, .home, .notFound: nil
        }
    }

    /// Classifies percent-decoded path segments.
    package static func classify(_ segments: [String], query: [String: String]) -> Route {
        guard let first = segments.first else { return .home }
        let lowered = segments.map { $0.lowercased() }
        switch lowered[0] {
        case "v1.0":
            if lowered.count == 2, lowered[1] == "me" { return .graphMe }
            if lowered.count == 2, lowered[1] == "users" { return .graphUsers }
            if lowered.count == 4, lowered[1] == "me", lowered[2] == "todo", lowered[3] == "lists" { return .graphTodoLists }
            if lowered.count == 3, lowered[1] == "users" { return .graphUser(segments[2]) }
            return .notFound
        case "_emulator": return .control(Array(lowered.dropFirst()))
        case "msi" where lowered == ["msi", "token"]: return .managedIdentity(.appService)
        case "metadata" where lowered == ["metadata", "identity", "oauth2", "token"]: return .managedIdentity(.imds)
        case "arc" where lowered == ["arc", "metadata", "identity", "oauth2", "token"]: return .managedIdentity(.azureArc)
        case "metadata" where lowered == ["metadata", "endpoints"]: return .resourceManagerEndpoints
        case "tenants" where segments.count == 1: return .resourceManagerTenants
        case "subscriptions" where segments.count == 1: return .resourceManagerSubscriptions
        case "subscriptions" where segments.count == 2: return .resourceManagerSubscription(segments[1])
        case EmulatorCore.federatedIssuerSegment where lowered == [EmulatorCore.federatedIssuerSegment, ".well-known", "openid-configuration"]:
            return .federatedIssuerConfiguration
        case EmulatorCore.federatedIssuerSegment where lowered == [EmulatorCore.federatedIssuerSegment, "keys"]:
            return .federatedIssuerKeys
        case "login" where segments.count == 1: return .login
        case "devicelogin" where segments.count == 1: return .deviceLogin
        default: break
        }
        var reference: TenantReference
        var rest: ArraySlice<String>
        if lowered[0] == "tfp" {
            guard segments.count >= 3 else { return .notFound }
            reference = TenantReference(segment: segments[1], policy: segments[2], tfp: true)
            rest = lowered[3...]
        } else if segments.count >= 2, lowered[1].hasPrefix("b2c_") {
            reference = TenantReference(segment: first, policy: segments[1], tfp: false)
            rest = lowered[2...]
        } else {
            reference = TenantReference(segment: first, policy: nil, tfp: false)
            rest = lowered[1...]
        }
        if reference.policy == nil, let policy = query["p"], policy.lowercased().hasPrefix("b2c_") {
            reference.policy = policy
        }
        switch Array(rest) {
        case ["discovery", "instance"]: return .instanceDiscovery
        case ["v2.0", ".well-known", "openid-configuration"], [".well-known", "openid-configuration"]:
            return .openIDConfiguration(reference)
        case ["discovery", "v2.0", "keys"], ["discovery", "keys"]: return .keys(reference)
        case ["oauth2", "v2.0", "authorize"]: return .authorize(reference)
        case ["oauth2", "v2.0", "token"]: return .token(reference)
        case ["oauth2", "v2.0", "devicecode"]: return .deviceCode(reference)
        case ["oauth2", "v2.0", "logout"]: return .logout(reference)
        case ["deviceauthpkeyauth"]: return .deviceAuthPKeyAuth(reference)
        case ["oauth2", "v2.0", "initiate"]: return .nativeAuth(reference, .signInInitiate)
        case ["oauth2", "v2.0", "challenge"]: return .nativeAuth(reference, .signInChallenge)
        case ["oauth2", "v2.0", "introspect"]: return .nativeAuth(reference, .signInIntrospect)
        case ["register", "v1.0", "introspect"]: return .nativeAuth(reference, .registerIntrospect)
        case ["register", "v1.0", "challenge"]: return .nativeAuth(reference, .registerChallenge)
        case ["register", "v1.0", "continue"]: return .nativeAuth(reference, .registerContinue)
        case ["signup", "v1.0", "start"]: return .nativeAuth(reference, .signUpStart)
        case ["signup", "v1.0", "challenge"]: return .nativeAuth(reference, .signUpChallenge)
        case ["signup", "v1.0", "continue"]: return .nativeAuth(reference, .signUpContinue)
        case ["resetpassword", "v1.0", "start"]: return .nativeAuth(reference, .resetStart)
        case ["resetpassword", "v1.0", "challenge"]: return .nativeAuth(reference, .resetChallenge)
        case ["resetpassword", "v1.0", "continue"]: return .nativeAuth(reference, .resetContinue)
        case ["resetpassword", "v1.0", "submit"]: return .nativeAuth(reference, .resetSubmit)
        case ["resetpassword", "v1.0", "poll_completion"]: return .nativeAuth(reference, .resetPollCompletion)
        default: return .notFound
        }
    }
}

extension EmulatorCore {
    /// Runs the handler for a classified request.
    package func handle(_ route: Route, _ request: EmulatorRequest) async -> EmulatorResponse {
        do {
            switch route {
            case .instanceDiscovery:
                return request.method == "GET" ? instanceDiscovery(request) : .methodNotAllowed("GET")
            case .openIDConfiguration(let reference):
                return request.method == "GET" ? try openIDConfiguration(reference, request) : .methodNotAllowed("GET")
            case .keys(let reference):
                return request.method == "GET" ? try jwks(reference, request) : .methodNotAllowed("GET")
            case .authorize(let reference):
                return try authorize(reference, request)
            case .login:
                return request.method == "POST" ? loginStep(request) : .methodNotAllowed("POST")
            case .deviceAuthPKeyAuth:
                return request.method == "GET" ? deviceAuthSubmit(request) : .methodNotAllowed("GET")
            case .token(let reference):
                return request.method == "POST" ? token(reference, request) : .methodNotAllowed("POST")
            case .deviceCode(let reference):
                return request.method == "POST" ? deviceAuthorization(reference, request) : .methodNotAllowed("POST")
            case .deviceLogin:
                return deviceLogin(request)
            case .logout(let reference):
                return logout(reference, request)
            case .nativeAuth(let reference, let endpoint):
                return request.method == "POST" ? nativeAuth(endpoint, reference, request) : .methodNotAllowed("POST")
            case .graphMe:
                return request.method == "GET" ? graph(userPath: nil, request) : .methodNotAllowed("GET")
            case .graphUsers:
                return request.method == "GET" ? graphUsers(request) : .methodNotAllowed("GET")
            case .graphUser(let id):
                return request.method == "GET" ? graph(userPath: id, request) : .methodNotAllowed("GET")
            case .graphTodoLists:
                return request.method == "POST" ? graphCreateTodoList(request) : .methodNotAllowed("POST")
            case .managedIdentity(let kind):
                return request.method == "GET" ? managedIdentityToken(kind, request) : .methodNotAllowed("GET")
            case .resourceManagerEndpoints:
                return request.method == "GET" ? resourceManagerEndpoints(request) : .methodNotAllowed("GET")
            case .resourceManagerTenants:
                return request.method == "GET" ? resourceManagerTenants(request) : .methodNotAllowed("GET")
            case .resourceManagerSubscriptions:
                return request.method == "GET" ? resourceManagerSubscriptions(request) : .methodNotAllowed("GET")
            case .resourceManagerSubscription(let id):
                return request.method == "GET" ? resourceManagerSubscription(id, request) : .methodNotAllowed("GET")
            case .federatedIssuerConfiguration:
                return request.method == "GET" ? federatedIssuerConfiguration(request) : .methodNotAllowed("GET")
            case .federatedIssuerKeys:
                return request.method == "GET" ? federatedIssuerKeys(request) : .methodNotAllowed("GET")
            case .control(let path):
                return try control(path, request)
            case .home:
                return .html(Pages.home(baseURL: request.baseURL, config: config))
            case .notFound:
                return .notFound()
            }
        } catch let error as EntraError {
            return error.response(request, clock: clock)
        } catch {
            return EntraError(error: "invalid_request", code: 90014, message: "The request could not be processed.").response(request, clock: clock)
        }
    }
}
