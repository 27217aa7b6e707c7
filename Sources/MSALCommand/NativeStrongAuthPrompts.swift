import Foundation
import MSAL
import MSALCommandSupport

/// The end of a native sign-in at the terminal when the tenant wants more than the first factor: a second factor
/// (pick a method, type the code sent to it) or registering a strong method (type an email address, then the code
/// sent to it, unless it is the address already verified).
extension NativeSession {
    /// The signed-in account of `outcome`, after a second factor or a registration when the tenant asks for one.
    static func finish(_ outcome: SignInOutcome) async throws -> MSALNativeAuthUserAccountResult {
        switch outcome {
        case .completed(let result): return result
        case .awaitingMFA(let methods, let state): return try await secondFactor(methods, state)
        case .strongAuthMethodRegistration(let methods, let state): return try await register(methods, state)
        }
    }

    /// A second factor: the method picked (asked when there are several), then its code.
    static func secondFactor(_ methods: [MSALAuthMethod], _ state: AwaitingMFAState) async throws -> MSALNativeAuthUserAccountResult {
        CLI.err("This account needs a second factor.")
        var blocked = 0
        while true {
            let method = try pick(methods)
            do {
                let sent = try await state.requestChallenge(authMethod: method)
                return try await enterCode(sent, submit: { try await $0.submitChallenge(challenge: $1) },
                                           resend: { try await $0.requestChallenge(authMethod: method) },
                                           isWrongCode: { ($0 as? MFASubmitChallengeError)?.isInvalidChallenge == true })
            } catch let error as MFARequestChallengeError {
                guard error.isAuthMethodBlocked, methods.count > 1, blocked + 1 < attempts else { throw error }
                blocked += 1
                CLI.err("The service does not send codes to this method now: pick another.")
            }
        }
    }

    /// Registering a strong method: the contact typed (the sign-in address needs no code), then the code sent to it.
    static func register(_ methods: [MSALAuthMethod], _ state: RegisterStrongAuthState) async throws -> MSALNativeAuthUserAccountResult {
        CLI.err("This account must register a way to receive sign-in codes.")
        let method = try pick(methods)
        var refused = 0
        while true {
            guard let contact = TerminalPrompt.ask("Email address for sign-in codes: ")?.trimmingCharacters(in: .whitespaces),
                  !contact.isEmpty else {
                throw CLIError(message: "No email address was entered.")
            }
            do {
                let parameters = MSALNativeAuthChallengeAuthMethodParameters(authMethod: method, verificationContact: contact)
                switch try await state.challengeAuthMethod(parameters: parameters) {
                case .completed(let result): return result
                case .verificationRequired(let sent):
                    return try await enterCode(sent.codeRequired, submit: { try await $0.submitChallenge(challenge: $1) }, resend: { state in
                        switch try await state.challengeAuthMethod(parameters: parameters) {
                        case .verificationRequired(let again): return again.codeRequired
                        case .completed:
                            throw CLIError(message: "The address was registered without a code: run the sign-in again.")
                        }
                    }, isWrongCode: { ($0 as? RegisterStrongAuthSubmitChallengeError)?.isInvalidChallenge == true })
                }
            } catch let error as RegisterStrongAuthChallengeError {
                guard error.isInvalidInput || error.isVerificationContactBlocked, refused + 1 < attempts else { throw error }
                refused += 1
                CLI.err(error.isInvalidInput ? "That is not an email address the service takes." : "The service does not take this address: give another.")
            }
        }
    }

    /// One of `methods`: the only one, or the one whose number is typed.
    static func pick(_ methods: [MSALAuthMethod]) throws -> MSALAuthMethod {
        guard methods.count > 1 else {
            guard let only = methods.first else { throw CLIError(message: "The service listed no method.") }
            return only
        }
        for (index, method) in methods.enumerated() {
            CLI.err("  \(index + 1). \(TerminalText.inline(method.channelTargetType.value)) \(TerminalText.inline(method.loginHint ?? method.id))")
        }
        guard let typed = TerminalPrompt.ask("Method [1-\(methods.count)]: ")?.trimmingCharacters(in: .whitespaces),
              let number = Int(typed), methods.indices.contains(number - 1) else {
            throw CLIError(message: "No method was chosen.")
        }
        return methods[number - 1]
    }
}

extension MSALNativeAuthRegisterStrongAuthVerificationRequiredResult {
    /// The code sent, in the shape the shared code prompt (``NativeSession/enterCode(_:submit:resend:isWrongCode:)``) takes.
    var codeRequired: MSALNativeAuthCodeRequired<RegisterStrongAuthVerificationRequiredState> {
        MSALNativeAuthCodeRequired(newState: newState, sentTo: sentTo, channelTargetType: channelTargetType, codeLength: codeLength)
    }
}
