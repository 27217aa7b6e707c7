import Foundation
import Testing
@testable import MSALCore

/// The second-factor and registration machine without I/O: each answer gives the next step, a wrong code or a
/// refused contact keeps the state, and the first factor's `mfa_required` / `registration_required` lead to it.
@Suite("Native authentication: the second-factor and registration machine")
struct NativeStrongAuthFlowTests {
    static let method = NativeAuthMethod(id: "email-1", challengeType: "oob", channel: "email", loginHint: "ma***@ex***.org")

    static func machine(_ kind: NativeStrongAuthFlow.Kind) -> NativeStrongAuthFlow {
        NativeStrongAuthFlow(kind: kind, continuationToken: "ct0", clientId: "client", username: "mary@example.org",
                             scopes: ["User.Read"], challengeTypes: [.oneTimePasscode, .password], claims: nil)
    }

    @Test("The first factor's mfa_required and registration_required hand over with their continuation tokens")
    func handOver() {
        for (suberror, kind) in [("mfa_required", NativeStrongAuthFlow.Kind.multiFactor), ("registration_required", .registration)] {
            var flow = NativeSignInFlow(clientId: "client", username: "mary@example.org", password: "pw", scopes: [],
                                        challengeTypes: [.password])
            _ = flow.start()
            _ = flow.received(.continuation(token: "ct1"))
            guard case .redeemPassword = flow.received(.passwordRequired(token: "ct2")) else { Issue.record("expected a password grant"); return }
            let error = NativeAuthServerError(error: "invalid_grant", suberror: suberror, errorCodes: [50076], continuationToken: "ct3")
            #expect(flow.redeemFailed(error) == .strongAuthRequired(kind, continuationToken: "ct3"))
        }
        // Without a continuation token it is an ordinary failure.
        var flow = NativeSignInFlow(clientId: "client", username: "u", password: "pw", scopes: [], challengeTypes: [.password])
        _ = flow.start()
        _ = flow.received(.continuation(token: "ct1"))
        _ = flow.received(.passwordRequired(token: "ct2"))
        guard case .failed(_, canRetry: false) = flow.redeemFailed(NativeAuthServerError(error: "invalid_grant", suberror: "mfa_required")) else {
            Issue.record("expected a failure"); return
        }
    }

    @Test("Second factor: introspect, pick, code; a wrong code and a blocked method keep the state")
    func multiFactor() {
        var flow = Self.machine(.multiFactor)
        #expect(flow.start() == .introspect(path: "oauth2/v2.0/introspect", continuationToken: "ct0"))
        #expect(flow.received(.methods(token: "ct1", [Self.method])) == .methodsListed([Self.method]))
        #expect(flow.submitCode("1") == .failed(.general, message: "No code is awaited.", canRetry: false))
        #expect(flow.requestChallenge(Self.method) == .challengeMethod(continuationToken: "ct1", methodId: "email-1",
                                                                       challengeTypes: "oob password redirect"))
        let blocked = NativeAuthServerError(error: "access_denied", suberror: "provider_blocked_by_rep", description: "Blocked.")
        guard case .failed(.authMethodBlocked, let message?, canRetry: true) = flow.received(.error(blocked)) else {
            Issue.record("expected a blocked method"); return
        }
        #expect(message.hasSuffix("Blocked.") && flow.stage == .awaitingMethod(continuationToken: "ct1"))
        _ = flow.requestChallenge(Self.method)
        #expect(flow.received(.codeSent(token: "ct2", sentTo: "ma***", channel: "email", codeLength: 8))
                == .codeRequired(sentTo: "ma***", channel: "email", codeLength: 8))
        guard case .redeemCode(let grant) = flow.submitCode("12345678") else { Issue.record("expected a grant"); return }
        #expect(grant.formParameters.contains { $0 == ("grant_type", "mfa_oob") } && grant.continuationToken == "ct2")
        let wrong = NativeAuthServerError(error: "invalid_grant", suberror: "invalid_oob_value")
        guard case .failed(.invalidChallenge, _, canRetry: true) = flow.redeemFailed(wrong) else { Issue.record("expected a wrong code"); return }
        #expect(flow.stage == .awaitingCode(continuationToken: "ct2"))
        _ = flow.submitCode("87654321")
        flow.redeemed()
        #expect(flow.stage == .finished)
    }

    @Test("Registration: a contact, its code, continue, then the continuation grant; preverified skips the code")
    func registration() {
        var flow = Self.machine(.registration)
        #expect(flow.start() == .introspect(path: "register/v1.0/introspect", continuationToken: "ct0"))
        _ = flow.received(.methods(token: "ct1", [Self.method]))
        guard case .failed(.invalidInput, _, canRetry: true) = flow.challengeContact(Self.method, contact: " ") else {
            Issue.record("an empty contact must fail before any request"); return
        }
        #expect(flow.challengeContact(Self.method, contact: "a@b.org")
                == .challengeContact(continuationToken: "ct1", method: Self.method, contact: "a@b.org", challengeTypes: "oob password redirect"))
        let invalid = NativeAuthServerError(error: "invalid_request", errorCodes: [901001])
        guard case .failed(.invalidInput, _, canRetry: true) = flow.received(.error(invalid)) else { Issue.record("expected invalid input"); return }
        _ = flow.challengeContact(Self.method, contact: "a@b.org")
        _ = flow.received(.codeSent(token: "ct2", sentTo: "a@b.org", channel: "email", codeLength: 8))
        #expect(flow.submitCode("11111111") == .registerContinue(continuationToken: "ct2", code: "11111111"))
        let wrong = NativeAuthServerError(error: "invalid_grant", suberror: "invalid_oob_value")
        guard case .failed(.invalidChallenge, _, canRetry: true) = flow.received(.error(wrong)) else { Issue.record("expected a wrong code"); return }
        #expect(flow.submitCode("22222222") == .registerContinue(continuationToken: "ct2", code: "22222222"))
        guard case .redeemContinuation(let grant) = flow.received(.continuation(token: "ct3")) else { Issue.record("expected a grant"); return }
        #expect(grant.continuationToken == "ct3" && grant.username == "mary@example.org")

        var preverified = Self.machine(.registration)
        _ = preverified.start()
        _ = preverified.received(.methods(token: "ct1", [Self.method]))
        _ = preverified.challengeContact(Self.method, contact: "mary@example.org")
        #expect(preverified.received(.preverified(token: "ct2")) == .registerContinue(continuationToken: "ct2", code: nil))
    }

    @Test("Answers that do not fit end the flow; redirect asks for the browser")
    func unexpected() {
        var flow = Self.machine(.multiFactor)
        _ = flow.start()
        guard case .failed(.general, _, canRetry: false) = flow.received(.passwordRequired(token: "x")) else { Issue.record("expected a failure"); return }
        #expect(flow.stage == .finished)
        var redirect = Self.machine(.registration)
        _ = redirect.start()
        guard case .failed(.browserRequired, _, canRetry: false) = redirect.received(.browserRequired(reason: nil)) else {
            Issue.record("expected the browser"); return
        }
        #expect(NativeAuthAnswer.parse(status: 200, body: Data(#"{"continuation_token":"c","methods":[{"id":"e","challenge_channel":"sms"},{"x":1}]}"#.utf8))
                == .methods(token: "c", [NativeAuthMethod(id: "e", challengeType: "oob", channel: "sms", loginHint: nil)]))
        #expect(NativeAuthAnswer.parse(status: 200, body: Data(#"{"continuation_token":"c","methods":[]}"#.utf8))
                == .malformed("A methods answer without a usable method."))
        #expect(NativeAuthAnswer.parse(status: 200, body: Data(#"{"continuation_token":"c","challenge_type":"preverified"}"#.utf8))
                == .preverified(token: "c"))
    }
}
