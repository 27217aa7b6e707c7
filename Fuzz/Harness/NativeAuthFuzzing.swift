import Foundation
@testable import MSALCore

/// Native authentication's answers (Microsoft Entra External ID's JSON API), as a server, or anything posing as one,
/// sends them.
enum NativeAuthFuzzing {
    /// The input as the body of an `initiate` / `challenge` / `token` answer, with HTTP 200 and 400, fed to the sign-in
    /// state machine at each step: no trap; a code sent has a length in 1...64 and a non-empty token; every token the
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
            case .browserRequired, .malformed:
                break
            }
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

    private static func checkStep(_ step: NativeSignInFlow.Step) throws {
        switch step {
        case .challenge(let token, _): try fuzzCheck(!token.isEmpty, "a challenge with an empty token")
        case .redeemPassword(let grant): try fuzzCheck(!grant.continuationToken.isEmpty, "a password grant with an empty token")
        case .redeemCode(let grant): try fuzzCheck(!grant.continuationToken.isEmpty, "a code grant with an empty token")
        case .codeRequired(_, _, let length): try fuzzCheck((1...64).contains(length), "a code length out of range")
        case .failed(let error, let canRetry):
            if canRetry {
                try fuzzCheck(error == .invalidCode || error == .invalidPassword, "a retry for an error that is not a wrong code or password")
            }
        case .initiate, .passwordRequired: break
        }
    }
}
