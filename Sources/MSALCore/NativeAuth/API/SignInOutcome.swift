import Foundation

/// Where a sign-in step that checks the user's first factor (a code, a password, the sign-in after a sign-up or a
/// password reset) left the sign-in: done, or the tenant wants a second factor or a strong method registered first.
public enum SignInOutcome: Sendable {
    /// The user is signed in; the tokens are in the app's cache.
    case completed(MSALNativeAuthUserAccountResult)
    /// A second factor is needed: pick one of the methods and ask for a code on the state. Only for apps that
    /// declare ``MSALNativeAuthCapabilities/mfaRequired``.
    case awaitingMFA(authMethods: [MSALAuthMethod], newState: AwaitingMFAState)
    /// The user must register a strong method first: give one and its contact on the state. Only for apps that
    /// declare ``MSALNativeAuthCapabilities/registrationRequired``.
    case strongAuthMethodRegistration(authMethods: [MSALAuthMethod], newState: RegisterStrongAuthState)

    /// The signed-in account, when the sign-in is complete.
    public var result: MSALNativeAuthUserAccountResult? {
        if case .completed(let result) = self { return result }
        return nil
    }

    /// Calls `delegate`'s callback for this outcome (on the main actor, as every delegate callback); `missing` gets
    /// the message when the app did not implement the strong-authentication callback it needs.
    @MainActor
    func deliver(_ delegate: any SignInStrongAuthDelegate, completed: (MSALNativeAuthUserAccountResult) -> Void,
                 missing: @escaping @MainActor @Sendable (String) -> Void) {
        switch self {
        case .completed(let result): NativeAuthMissingCallback.reporting(missing) { completed(result) }
        case .awaitingMFA(let methods, let state):
            NativeAuthMissingCallback.reporting(missing) { delegate.onSignInAwaitingMFA(authMethods: methods, newState: state) }
        case .strongAuthMethodRegistration(let methods, let state):
            NativeAuthMissingCallback.reporting(missing) { delegate.onSignInStrongAuthMethodRegistration(authMethods: methods, newState: state) }
        }
    }
}

/// A strong authentication method of the user: where a second-factor code can go, or what can be registered.
public final class MSALAuthMethod: Sendable, CustomStringConvertible {
    /// The method's id, as the service names it.
    public let id: String
    /// How it proves the user (`oob`: a code sent).
    public let challengeType: String
    /// Where its codes go (email, SMS).
    public let channelTargetType: MSALNativeAuthChannelType
    /// The address or phone number, masked as the service shows it.
    public let loginHint: String?

    public init(id: String, challengeType: String, loginHint: String?, channelTargetType: MSALNativeAuthChannelType) {
        self.id = id
        self.challengeType = challengeType
        self.loginHint = loginHint
        self.channelTargetType = channelTargetType
    }

    convenience init(_ method: NativeAuthMethod) {
        self.init(id: method.id, challengeType: method.challengeType, loginHint: method.loginHint,
                  channelTargetType: MSALNativeAuthChannelType(value: method.channel))
    }

    var core: NativeAuthMethod {
        NativeAuthMethod(id: id, challengeType: challengeType, channel: channelTargetType.value, loginHint: loginHint)
    }

    public var description: String { "MSALAuthMethod(\(id), \(channelTargetType.value))" }
}

/// The method and contact ``RegisterStrongAuthBaseState/challengeAuthMethod(parameters:delegate:)`` registers.
public final class MSALNativeAuthChallengeAuthMethodParameters: @unchecked Sendable {
    /// The method to register (one of those the state listed).
    public var authMethod: MSALAuthMethod
    /// The email address (or phone number) its codes go to.
    public var verificationContact: String

    public init(authMethod: MSALAuthMethod, verificationContact: String) {
        self.authMethod = authMethod
        self.verificationContact = verificationContact
    }
}

/// A code was sent to the contact being registered: submit it on ``newState``.
public final class MSALNativeAuthRegisterStrongAuthVerificationRequiredResult: Sendable {
    public let newState: RegisterStrongAuthVerificationRequiredState
    public let sentTo: String
    public let channelTargetType: MSALNativeAuthChannelType
    public let codeLength: Int

    init(newState: RegisterStrongAuthVerificationRequiredState, sentTo: String, channelTargetType: MSALNativeAuthChannelType,
         codeLength: Int) {
        self.newState = newState
        self.sentTo = sentTo
        self.channelTargetType = channelTargetType
        self.codeLength = codeLength
    }
}

/// Turns a sign-in session's outcome into the public values.
enum NativeSignInOutcomes {
    static func failure<E: MSALNativeAuthError>(_ outcome: NativeSignInSession.Outcome, correlationId: UUID) -> NativeAuthFailure<E> {
        if case .failed(let kind, let message, let service, let canRetry) = outcome {
            return NativeAuthFailure(error: E(kind, message: message, correlationId: correlationId, errorCodes: service.codes,
                                              errorUri: service.uri),
                                     canRetry: canRetry)
        }
        return NativeAuthFailure(error: E(.general, message: "An answer that does not fit this step.", correlationId: correlationId),
                                 canRetry: false)
    }

    /// A first-factor step's outcome: signed in, or on to a second factor or a registration.
    static func signedIn<E: MSALNativeAuthError>(_ outcome: NativeSignInSession.Outcome, application: MSALPublicClientApplication,
                                                 session: NativeSignInSession) -> Result<Carried<SignInOutcome>, NativeAuthFailure<E>> {
        switch outcome {
        case .completed(let result):
            return .success(Carried(.completed(account(result, application: application, session: session))))
        case .methodsListed(.multiFactor, let methods):
            return .success(Carried(.awaitingMFA(authMethods: methods.map(MSALAuthMethod.init),
                                                 newState: AwaitingMFAState(session: session, application: application))))
        case .methodsListed(.registration, let methods):
            return .success(Carried(.strongAuthMethodRegistration(authMethods: methods.map(MSALAuthMethod.init),
                                                                  newState: RegisterStrongAuthState(session: session, application: application))))
        default:
            return .failure(failure(outcome, correlationId: session.correlationId))
        }
    }

    /// A step that can only end the sign-in (a second factor's code, a registration).
    static func completed<E: MSALNativeAuthError>(_ outcome: NativeSignInSession.Outcome, application: MSALPublicClientApplication,
                                                  session: NativeSignInSession) -> Result<Carried<MSALNativeAuthUserAccountResult>, NativeAuthFailure<E>> {
        guard case .completed(let result) = outcome else { return .failure(failure(outcome, correlationId: session.correlationId)) }
        return .success(Carried(account(result, application: application, session: session)))
    }

    static func account(_ result: MSALResult, application: MSALPublicClientApplication, session: NativeSignInSession) -> MSALNativeAuthUserAccountResult {
        MSALNativeAuthUserAccountResult(signedIn: result, application: application, scopes: session.scopes, correlationId: session.correlationId)
    }

    static func codeRequired<State: Sendable, E: MSALNativeAuthError>(_ outcome: NativeSignInSession.Outcome, session: NativeSignInSession,
                                                                      state: () -> State) -> Result<Carried<MSALNativeAuthCodeRequired<State>>, NativeAuthFailure<E>> {
        guard case .codeRequired(let sentTo, let channel, let length) = outcome else {
            return .failure(failure(outcome, correlationId: session.correlationId))
        }
        return .success(Carried(MSALNativeAuthCodeRequired(newState: state(), sentTo: sentTo,
                                                           channelTargetType: MSALNativeAuthChannelType(value: channel), codeLength: length)))
    }
}
