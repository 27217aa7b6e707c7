import Foundation
@testable import MSALCore

/// Native authentication's answers (Microsoft Entra External ID's JSON API), as a server, or anything posing as one,
/// sends them.
enum NativeAuthFuzzing {
    /// The input as the body of a native-authentication answer, with HTTP 200 and 400, fed to the sign-in, sign-up
    /// and password-reset state machines at each step: no trap; a code sent has a length in 1...64 and a non-empty token; every token the
    /// machine sends on is non-empty; a failure is retryable only for a wrong code or password, and then the machine
    /// awaits that input again.
    static func answer(_ data: Data) throws {
        for status in [200, 400] {
            let answer = NativeAuthAnswer.parse(status: status, body: data)
            switch answer {
            case .continuation(let token), .passwordRequired(let token):
                try fuzzCheck(!token.isEmpty, "an empty continuation token")
            case .codeSent(let token, _, _, let length):
                try fuzzCheck(!token.isEmpty && (1...64).contains(length), "a code sent without a token or a sane length")
            case .error(let error):
                try fuzzCheck(!error.error.isEmpty && error.errorCodes.count <= 16, "an error without a name or with too many codes")
            case .passwordSubmitted(let token, let interval):
                try fuzzCheck(!token.isEmpty && (0...300).contains(interval), "a submitted password without a token or a sane interval")
            case .resetStatus(let status, let token):
                try fuzzCheck(!status.isEmpty && token?.isEmpty != true, "a reset status that is empty or has an empty token")
            case .methods(let token, let methods):
                try fuzzCheck(!token.isEmpty && (1...16).contains(methods.count) && methods.allSatisfy { !$0.id.isEmpty },
                              "a methods answer without a token, with no or too many methods, or an unnamed one")
            case .preverified(let token):
                try fuzzCheck(!token.isEmpty, "a preverified answer with an empty token")
            case .browserRequired, .malformed:
                break
            }
            try signUp(answer)
            try strongAuth(answer)
            try resetPassword(answer)
            for stage in 0..<3 {
                var flow = NativeSignInFlow(clientId: FuzzFixtures.clientId, username: "user@contoso.com",
                                            password: stage == 2 ? "secret" : nil, scopes: ["User.Read"],
                                            challengeTypes: [.oneTimePasscode, .password])
                _ = flow.start()
                if stage >= 1 { _ = flow.received(.continuation(token: "ct")) }
                try checkStep(flow.received(answer))
                if case .error(let error) = answer {
                    var redeeming = NativeSignInFlow(clientId: FuzzFixtures.clientId, username: "u", password: nil, scopes: [],
                                                     challengeTypes: [.oneTimePasscode])
                    _ = redeeming.start()
                    _ = redeeming.received(.continuation(token: "ct"))
                    _ = redeeming.received(.codeSent(token: "ct2", sentTo: "", channel: "email", codeLength: 8))
                    _ = redeeming.submitCode("1")
                    let step = redeeming.redeemFailed(error)
                    try checkStep(step)
                    if case .failed(_, true) = step {
                        try fuzzCheck(redeeming.stage == .awaitingCode(continuationToken: "ct2"), "a retry that does not await the code")
                    }
                }
            }
        }
    }

    /// The answer at each step of a sign-up: the machine never sends an empty token, and a retryable failure leaves
    /// it awaiting the app's input.
    private static func signUp(_ answer: NativeAuthAnswer) throws {
        for stage in 0..<5 {
            var flow = NativeSignUpFlow(username: "user@contoso.com", password: nil, attributes: nil,
                                        challengeTypes: [.oneTimePasscode, .password])
            _ = flow.start()
            if stage >= 1 { _ = flow.received(.continuation(token: "t1")) }
            if stage >= 2 {
                _ = flow.received(.codeSent(token: "t2", sentTo: "", channel: "email", codeLength: 8))
                _ = flow.submitCode("1")
            }
            if stage >= 3 {
                _ = flow.received(.error(NativeAuthServerError(error: "credential_required", continuationToken: "t3")))
                _ = flow.received(.passwordRequired(token: "t4"))
                _ = flow.submitPassword("p")
            }
            if stage >= 4 {
                _ = flow.received(.error(NativeAuthServerError(error: "attributes_required", continuationToken: "t5")))
                _ = flow.submitAttributes("{}")
            }
            let step = flow.received(answer)
            try checkFlowStep(step)
            if case .failed(_, _, true) = step {
                switch flow.stage {
                case .awaitingCode, .awaitingPassword, .awaitingAttributes: break
                default: try fuzzCheck(false, "a retryable sign-up failure that awaits nothing")
                }
            }
        }
    }

    /// The answer at each step of a password reset, with the same checks.
    private static func resetPassword(_ answer: NativeAuthAnswer) throws {
        for stage in 0..<4 {
            var flow = NativeResetPasswordFlow(username: "user@contoso.com", challengeTypes: [.oneTimePasscode])
            _ = flow.start()
            if stage >= 1 { _ = flow.received(.continuation(token: "t1")) }
            if stage >= 2 {
                _ = flow.received(.codeSent(token: "t2", sentTo: "", channel: "email", codeLength: 8))
                _ = flow.submitCode("1")
            }
            if stage >= 3 {
                _ = flow.received(.continuation(token: "t3"))
                _ = flow.submitPassword("p")
            }
            let step = flow.received(answer)
            try checkFlowStep(step)
            if case .failed(_, _, true) = step {
                switch flow.stage {
                case .awaitingCode, .awaitingPassword: break
                default: try fuzzCheck(false, "a retryable reset failure that awaits nothing")
                }
            }
        }
    }

    private static func checkFlowStep(_ step: NativeFlowStep) throws {
        switch step {
        case .post(_, let fields), .wait(_, _, let fields):
            for field in fields where field.name == "continuation_token" {
                try fuzzCheck(!field.value.isEmpty, "a request with an empty continuation token")
            }
        case .completed(let token): try fuzzCheck(!token.isEmpty, "a completed flow with an empty token")
        case .codeRequired(_, _, let length): try fuzzCheck((1...64).contains(length), "a code length out of range")
        case .attributesRequired(let attributes):
            try fuzzCheck(attributes.count <= 64 && attributes.allSatisfy { !$0.name.isEmpty }, "unbounded or unnamed attributes")
        case .attributesInvalid(let names, _): try fuzzCheck(names.count <= 64, "unbounded invalid attributes")
        case .passwordRequired, .failed: break
        }
    }

    private static func checkStep(_ step: NativeSignInFlow.Step) throws {
        switch step {
        case .challenge(let token, _): try fuzzCheck(!token.isEmpty, "a challenge with an empty token")
        case .redeemPassword(let grant): try fuzzCheck(!grant.continuationToken.isEmpty, "a password grant with an empty token")
        case .redeemCode(let grant): try fuzzCheck(!grant.continuationToken.isEmpty, "a code grant with an empty token")
        case .redeemContinuation(let grant): try fuzzCheck(!grant.continuationToken.isEmpty, "a continuation grant with an empty token")
        case .strongAuthRequired(_, let token): try fuzzCheck(!token.isEmpty, "a second factor with an empty token")
        case .codeRequired(_, _, let length): try fuzzCheck((1...64).contains(length), "a code length out of range")
        case .failed(let error, let canRetry):
            if canRetry {
                try fuzzCheck(error == .invalidCode || error == .invalidPassword, "a retry for an error that is not a wrong code or password")
            }
        case .initiate, .passwordRequired: break
        }
    }

    /// The answer fed to the second-factor and registration machine at each of its steps: every token it sends on
    /// is non-empty; a retryable failure leaves it waiting for the app (a method or a code).
    static func strongAuth(_ answer: NativeAuthAnswer) throws {
        let method = NativeAuthMethod(id: "email", challengeType: "oob", channel: "email", loginHint: nil)
        for kind in [NativeStrongAuthFlow.Kind.multiFactor, .registration] {
            for depth in 0..<4 {
                var flow = NativeStrongAuthFlow(kind: kind, continuationToken: "ct", clientId: FuzzFixtures.clientId, username: "u",
                                                scopes: [], challengeTypes: [.oneTimePasscode], claims: nil)
                _ = flow.start()
                if depth >= 1 { _ = flow.received(.methods(token: "ct1", [method])) }
                if depth >= 2 { _ = kind == .multiFactor ? flow.requestChallenge(method) : flow.challengeContact(method, contact: "a@b.c") }
                if depth >= 3 {
                    _ = flow.received(.codeSent(token: "ct2", sentTo: "a", channel: "email", codeLength: 8))
                    _ = flow.submitCode("12345678")
                }
                let step = flow.received(answer)
                switch step {
                case .introspect(_, let token), .challengeMethod(let token, _, _), .challengeContact(let token, _, _, _),
                     .registerContinue(let token, _):
                    try fuzzCheck(!token.isEmpty, "a strong-auth request with an empty token")
                case .redeemCode(let grant): try fuzzCheck(!grant.continuationToken.isEmpty, "an MFA grant with an empty token")
                case .redeemContinuation(let grant): try fuzzCheck(!grant.continuationToken.isEmpty, "a registration grant with an empty token")
                case .methodsListed(let methods): try fuzzCheck(!methods.isEmpty && methods.count <= 16, "no or too many methods")
                case .codeRequired(_, _, let length): try fuzzCheck((1...64).contains(length), "a code length out of range")
                case .failed(_, _, let canRetry):
                    if canRetry {
                        switch flow.stage {
                        case .awaitingMethod, .awaitingCode: break
                        default: throw FuzzFailure("a retryable failure that does not wait for the app")
                        }
                    }
                }
                if case .error(let error) = answer, depth == 3, kind == .multiFactor {
                    var redeeming = flow
                    _ = redeeming.redeemFailed(error)
                }
            }
        }
    }
}
