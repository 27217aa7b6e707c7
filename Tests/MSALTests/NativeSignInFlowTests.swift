import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MSALEmulator
import MSALEmulatorCore
import MSALSupport
import MSALTestSupport
import Testing
@testable import MSALCore

/// Native sign-in's state machine without I/O, its answer parser, and the machine's requests and grants driven against
/// the emulator's native-authentication endpoints.
@Suite("Native authentication: the sign-in state machine")
struct NativeSignInFlowTests {
    static let clientId = "5c4b3a29-1807-4f6e-9d5c-4b3a29180706"

    static func answer(_ json: String, status: Int = 200) -> NativeAuthAnswer {
        NativeAuthAnswer.parse(status: status, body: Data(json.utf8))
    }

    @Test("Password given up front: initiate, challenge, the password grant; a wrong password keeps the token")
    func passwordFlow() throws {
        var flow = NativeSignInFlow(clientId: Self.clientId, username: "a@b.c", password: "secret", scopes: ["User.Read"],
                                    challengeTypes: [.oneTimePasscode, .password])
        #expect(flow.start() == .initiate(username: "a@b.c", challengeTypes: "oob password redirect"))
        #expect(flow.received(Self.answer(#"{"continuation_token":"ct1"}"#))
            == .challenge(continuationToken: "ct1", challengeTypes: "oob password redirect"))
        guard case .redeemPassword(let grant) = flow.received(Self.answer(#"{"challenge_type":"password","continuation_token":"ct2"}"#)) else {
            Issue.record("expected the password grant"); return
        }
        let form = Dictionary(grant.formParameters, uniquingKeysWith: { $1 })
        #expect(form["grant_type"] == "password" && form["continuation_token"] == "ct2" && form["password"] == "secret")
        #expect(form["scope"] == "User.Read openid profile offline_access")
        #expect(form["client_info"] == "true" && form["challenge_type"] == "oob password redirect")
        // A wrong password given up front ends the sign-in (MSAL for iOS/macOS: invalid credentials, no state).
        let wrong = NativeAuthServerError(error: "invalid_grant", errorCodes: [50126])
        #expect(flow.redeemFailed(wrong) == .failed(.invalidCredentials, canRetry: false))
        #expect(flow.stage == .finished)

        // A wrong password submitted on the password state keeps the state and its token.
        var asked = NativeSignInFlow(clientId: Self.clientId, username: "a@b.c", password: nil, scopes: [],
                                     challengeTypes: [.password])
        _ = asked.start()
        _ = asked.received(Self.answer(#"{"continuation_token":"ct1"}"#))
        #expect(asked.received(Self.answer(#"{"challenge_type":"password","continuation_token":"ct2"}"#)) == .passwordRequired)
        guard case .redeemPassword = asked.submitPassword("wrong") else { Issue.record("expected the password grant"); return }
        #expect(asked.redeemFailed(wrong) == .failed(.invalidPassword, canRetry: true))
        #expect(asked.stage == .awaitingPassword(continuationToken: "ct2"))
        #expect(asked.submitPassword("") == .failed(.invalidPassword, canRetry: true))
        guard case .redeemPassword(let again) = asked.submitPassword("right") else { Issue.record("expected a retry"); return }
        #expect(again.continuationToken == "ct2")
        asked.redeemed()
        #expect(asked.stage == .finished)
    }

    @Test("Code flow: the code is asked for, a wrong code keeps the state, an empty one fails locally")
    func codeFlow() {
        var flow = NativeSignInFlow(clientId: Self.clientId, username: "a@b.c", password: nil, scopes: [],
                                    challengeTypes: [.oneTimePasscode])
        _ = flow.start()
        _ = flow.received(Self.answer(#"{"continuation_token":"ct1"}"#))
        let sent = flow.received(Self.answer(
            #"{"challenge_type":"oob","continuation_token":"ct2","code_length":8,"challenge_target_label":"a***@b***","challenge_channel":"email"}"#))
        #expect(sent == .codeRequired(sentTo: "a***@b***", channel: "email", codeLength: 8))
        #expect(flow.submitCode("") == .failed(.invalidCode, canRetry: true))
        guard case .redeemCode(let grant) = flow.submitCode("12345678") else { Issue.record("expected the code grant"); return }
        #expect(Dictionary(grant.formParameters, uniquingKeysWith: { $1 })["oob"] == "12345678")
        let wrong = NativeAuthServerError(error: "invalid_grant", suberror: "invalid_oob_value", errorCodes: [50181])
        #expect(flow.redeemFailed(wrong) == .failed(.invalidCode, canRetry: true))
        #expect(flow.stage == .awaitingCode(continuationToken: "ct2"))
        let expired = NativeAuthServerError(error: "expired_token", description: "gone")
        _ = flow.submitCode("1")
        #expect(flow.redeemFailed(expired) == .failed(.general("gone"), canRetry: false))
    }

    @Test("Errors: local input checks, redirect, an unknown user, answers that do not fit")
    func errors() {
        var empty = NativeSignInFlow(clientId: Self.clientId, username: " ", password: nil, scopes: [], challengeTypes: [.password])
        #expect(empty.start() == .failed(.invalidUsername, canRetry: false))
        var noPassword = NativeSignInFlow(clientId: Self.clientId, username: "a", password: "", scopes: [], challengeTypes: [.password])
        #expect(noPassword.start() == .failed(.invalidCredentials, canRetry: false))
        var flow = NativeSignInFlow(clientId: Self.clientId, username: "a", password: nil, scopes: [], challengeTypes: [.password])
        _ = flow.start()
        #expect(flow.received(Self.answer(#"{"error":"user_not_found","error_codes":[50034]}"#, status: 400))
            == .failed(.userNotFound, canRetry: false))
        var redirected = NativeSignInFlow(clientId: Self.clientId, username: "a", password: nil, scopes: [], challengeTypes: [.password])
        _ = redirected.start()
        _ = redirected.received(Self.answer(#"{"continuation_token":"ct"}"#))
        #expect(redirected.received(Self.answer(#"{"challenge_type":"redirect","redirect_reason":"mfa"}"#))
            == .failed(.browserRequired("mfa"), canRetry: false))
        var odd = NativeSignInFlow(clientId: Self.clientId, username: "a", password: nil, scopes: [], challengeTypes: [.password])
        _ = odd.start()
        #expect(odd.received(Self.answer(#"{"challenge_type":"password","continuation_token":"x"}"#))
            == .failed(.general("An answer that does not fit the sign-in's step."), canRetry: false))
    }

    @Test("The answer parser: malformed answers and error bodies")
    func parser() {
        #expect(Self.answer("not json") == .malformed("The answer is not a JSON object."))
        #expect(Self.answer(#"{"challenge_type":"oob","continuation_token":"c"}"#)
            == .malformed("An oob challenge without a code length."))
        #expect(Self.answer(#"{"challenge_type":"oob","continuation_token":"c","code_length":1e300}"#)
            == .malformed("An oob challenge without a code length."))
        #expect(Self.answer(#"{"challenge_type":"sms"}"#) == .malformed("An unknown challenge type 'sms'."))
        #expect(Self.answer("{}", status: 500) == .malformed("HTTP 500 without an OAuth error."))
        #expect(Self.answer("{}") == .malformed("An answer without a continuation token."))
        let error = Self.answer(#"{"error":"invalid_grant","suberror":"invalid_oob_value","error_codes":[50181,"x",1e99],"continuation_token":"c"}"#,
                                status: 400)
        #expect(error == .error(NativeAuthServerError(error: "invalid_grant", suberror: "invalid_oob_value",
                                                      errorCodes: [50181], continuationToken: "c")))
    }

    // MARK: Against the emulator

    static func post(_ emulator: IdentityEmulator, _ path: String, _ form: [(String, String)]) async throws -> (Int, Data) {
        var request = URLRequest(url: emulator.httpURL.appendingPathComponent("\(EmulatorConfiguration.externalTenantDomain)/oauth2/v2.0/\(path)"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(FormCoding.encode(form).utf8)
        let (status, _, body) = try await NoRedirectFetcher.send(request)
        return (status, body)
    }

    /// Runs the machine against the emulator until it asks the app for something or redeems a grant, returning that
    /// step.
    static func drive(_ flow: inout NativeSignInFlow, _ emulator: IdentityEmulator, from step: NativeSignInFlow.Step) async throws
        -> NativeSignInFlow.Step {
        var step = step
        while true {
            switch step {
            case .initiate(let username, let types):
                let (status, body) = try await post(emulator, "initiate", [("client_id", clientId), ("username", username),
                                                                          ("challenge_type", types)])
                step = flow.received(NativeAuthAnswer.parse(status: status, body: body))
            case .challenge(let token, let types):
                let (status, body) = try await post(emulator, "challenge", [("client_id", clientId), ("continuation_token", token),
                                                                           ("challenge_type", types)])
                step = flow.received(NativeAuthAnswer.parse(status: status, body: body))
            default:
                return step
            }
        }
    }

    static func startEmulator() async throws -> IdentityEmulator {
        try await IdentityEmulator.start(EmulatorConfiguration.default)
    }

    @Test("The machine's requests and grants are what the emulator's endpoints take: password and emailed code")
    func againstTheEmulator() async throws {
        let emulator = try await Self.startEmulator()
        defer { Task { await emulator.stop() } }
        var passwordFlow = NativeSignInFlow(clientId: Self.clientId, username: EmulatorConfiguration.customerWithPassword, password: "Passw0rd!",
                                            scopes: ["User.Read"], challengeTypes: [.oneTimePasscode, .password])
        guard case .redeemPassword(let grant) = try await Self.drive(&passwordFlow, emulator, from: passwordFlow.start()) else {
            Issue.record("expected the password grant"); return
        }
        let (status, body) = try await Self.post(emulator, "token", grant.formParameters)
        #expect(status == 200, "\(String(decoding: body, as: UTF8.self))")

        var codeFlow = NativeSignInFlow(clientId: Self.clientId, username: EmulatorConfiguration.customerWithCode, password: nil,
                                        scopes: ["User.Read"], challengeTypes: [.oneTimePasscode, .password])
        let asked = try await Self.drive(&codeFlow, emulator, from: codeFlow.start())
        #expect(asked == .codeRequired(sentTo: "ol***@ex***.org", channel: "email", codeLength: 8))
        let (_, _, mailbox) = try await NoRedirectFetcher.fetch(
            emulator.httpURL.appendingPathComponent("_emulator/native-auth/codes"))
        let codes = (try JSONSerialization.jsonObject(with: mailbox) as? [String: Any])?["codes"] as? [[String: Any]]
        let code = try #require(codes?.last?["code"] as? String)
        guard case .redeemCode(let wrongGrant) = codeFlow.submitCode("0") else { Issue.record("expected a grant"); return }
        let (_, wrongBody) = try await Self.post(emulator, "token", wrongGrant.formParameters)
        guard case .error(let error) = NativeAuthAnswer.parse(status: 400, body: wrongBody) else {
            Issue.record("expected an error answer"); return
        }
        #expect(codeFlow.redeemFailed(error) == .failed(.invalidCode, canRetry: true))
        guard case .redeemCode(let codeGrant) = codeFlow.submitCode(code) else { Issue.record("expected a grant"); return }
        let (codeStatus, codeBody) = try await Self.post(emulator, "token", codeGrant.formParameters)
        #expect(codeStatus == 200, "\(String(decoding: codeBody, as: UTF8.self))")
        let tokens = try JSONSerialization.jsonObject(with: codeBody) as? [String: Any]
        #expect(tokens?["refresh_token"] is String && tokens?["client_info"] is String)
    }
}
