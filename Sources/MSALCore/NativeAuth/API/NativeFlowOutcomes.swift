import Foundation

/// Turns a sign-up or password-reset session's outcome into the public values.
enum NativeFlowOutcomes {
    /// The public error of a failed step (`E` is the step's error class).
    static func failure<E: MSALNativeAuthError>(_ step: NativeFlowStep, service: NativeServiceErrorDetails,
                                                correlationId: UUID) -> NativeAuthFailure<E> {
        switch step {
        case .failed(let kind, let message, let canRetry):
            return NativeAuthFailure(error: E(kind, message: message, correlationId: correlationId, errorCodes: service.codes,
                                              errorUri: service.uri),
                                     canRetry: canRetry)
        default:
            return NativeAuthFailure(error: E(.general, message: "An answer that does not fit this step.", correlationId: correlationId,
                                              errorCodes: service.codes, errorUri: service.uri), canRetry: false)
        }
    }

    static func channel(_ value: String) -> MSALNativeAuthChannelType { MSALNativeAuthChannelType(value: value) }

    static func attributes(_ attributes: [NativeAuthAttribute]) -> [MSALNativeAuthRequiredAttribute] {
        attributes.map { MSALNativeAuthRequiredAttribute(name: $0.name, type: $0.type, required: $0.required, regex: $0.regex) }
    }

    /// The JSON object text of sign-up attributes: strings, numbers and booleans by name; anything else is refused.
    static func attributesJSON(_ attributes: [String: Any]) -> String? {
        var object: [String: Any] = [:]
        for (name, value) in attributes {
            switch value {
            case let text as String: object[name] = text
            case let flag as Bool: object[name] = flag
            case let number as Int: object[name] = number
            case let number as Double where number.isFinite: object[name] = number
            default: return nil
            }
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The sign-in that ends a sign-up or a password reset: the flow's last token redeemed on the token endpoint
/// (`grant_type=continuation_token`), once; the tenant may then want a second factor or a strong method registered.
struct NativeSignInAfterFlow: Sendable {
    let application: MSALNativeAuthPublicClientApplication
    let continuationToken: String
    let username: String
    let correlationId: UUID

    func signIn<E: MSALNativeAuthError>(scopes: [String]?, claimsRequest: MSALClaimsRequest?) async
        -> Result<Carried<SignInOutcome>, NativeAuthFailure<E>> {
        let claims = ClaimsParameter.build(capabilities: application.engine.settings.clientCapabilities, claimsRequest: claimsRequest)
        let session = NativeSignInSession(client: application.native, username: username, password: nil, scopes: scopes ?? [],
                                          claims: claims, correlationId: correlationId)
        let outcome = await session.startAfterFlow(continuationToken: continuationToken)
        let result: Result<Carried<SignInOutcome>, NativeAuthFailure<E>> =
            NativeSignInOutcomes.signedIn(outcome, application: application, session: session)
        // The token is redeemed once: a failed sign-in does not leave the state usable.
        return result.mapError { NativeAuthFailure(error: $0.error, canRetry: false) }
    }
}
