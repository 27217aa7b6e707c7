import Foundation
import MSAL
import MSALEmulator
import MSALEmulatorCore
import MSALTestSupport
import Testing
@testable import MSALCore

/// Native sign-up and self-service password reset through the public API against the emulator's External ID
/// tenant: each step, the service's errors as MSAL for iOS/macOS's, and the sign-in that ends each flow.
@Suite("Native authentication: sign-up and password reset")
struct NativeSignUpResetTests {
    static func startEmulator() async throws -> IdentityEmulator {
        try await NativeAuthAPITests.startEmulator { configuration in
            configuration.nativeAuth.resetPasswordPollInterval = 0
            configuration.nativeAuth.signUpAttributes = [
                NativeAuthSettings.Attribute(name: "displayName", required: true),
                NativeAuthSettings.Attribute(name: "city", required: false, regex: "^[A-Za-z ]+$"),
            ]
        }
    }

    @Test("Sign-up step by step: code, password, attributes, then the sign-in that needs no second code")
    func signUpStepByStep() async throws {
        let emulator = try await Self.startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try NativeAuthAPITests.makeApp(emulator)
        let username = "grace@example.org"
        guard case .codeRequired(let sent) = try await app.signUp(parameters: MSALNativeAuthSignUpParameters(username: username)) else {
            Issue.record("expected a code"); return
        }
        #expect(sent.sentTo == "gr***@ex***.org")
        await #expect(throws: VerifyCodeError.self) { _ = try await sent.newState.submitCode(code: "00000000") }
        let code = try await NativeAuthAPITests.lastCode(emulator, for: username)
        guard case .passwordRequired(let passwordState) = try await sent.newState.submitCode(code: code) else {
            Issue.record("expected the password to be asked for"); return
        }
        do {
            _ = try await passwordState.submitPassword(password: "short")
            Issue.record("a weak password was accepted")
        } catch {
            #expect(error.isInvalidPassword)
        }
        guard case .attributesRequired(let attributes, let attributeState) = try await passwordState.submitPassword(password: "Str0ng!Passw0rd") else {
            Issue.record("expected attributes to be asked for"); return
        }
        #expect(attributes.map(\.name) == ["displayName"] && attributes.first?.required == true)
        guard case .attributesInvalid(let names, let again) = try await attributeState.submitAttributes(attributes: ["displayName": "Grace", "city": "Arl1ngton"]) else {
            Issue.record("expected the city to be rejected"); return
        }
        #expect(names == ["city"])
        guard case .completed(let signInState) = try await again.submitAttributes(attributes: ["displayName": "Grace Hopper", "city": "Arlington"]) else {
            Issue.record("expected the account to be created"); return
        }
        let parameters = MSALNativeAuthSignInAfterSignUpParameters()
        parameters.scopes = ["User.Read"]
        let result = try #require(try await signInState.signIn(parameters: parameters).result)
        #expect(result.account.username == username)
        #expect(try await result.getAccessToken().scopes.contains { $0.hasSuffix("User.Read") })
        // The sign-up's last token signs in once.
        await #expect(throws: SignInAfterSignUpError.self) { _ = try await signInState.signIn(parameters: parameters) }

        // The new user signs in with the password chosen at sign-up.
        let signIn = MSALNativeAuthSignInParameters(username: username)
        signIn.password = "Str0ng!Passw0rd"
        guard case .completed(let again2) = try await app.signIn(parameters: signIn) else { Issue.record("expected a sign-in"); return }
        #expect(again2.account.username == username)
    }

    /// A sign-up screen adopting three delegates that share `onSignUpCompleted` and `onSignUpAttributesRequired`,
    /// implementing neither (it compiles, as with MSAL for iOS/macOS's optional methods).
    @MainActor
    final class SharedCallbackScreen: SignUpStartDelegate, SignUpVerifyCodeDelegate, SignUpPasswordRequiredDelegate {
        var events: [String] = []
        var codeState: SignUpCodeRequiredState?
        var waiter: CheckedContinuation<Void, Never>?
        private func record(_ event: String) { events.append(event); waiter?.resume(); waiter = nil }
        func wait(_ start: () -> Void) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in waiter = continuation; start() }
        }
        func onSignUpStartError(error: SignUpStartError) { record("start error: \(error.errorDescription ?? "")") }
        func onSignUpCodeRequired(newState: SignUpCodeRequiredState, sentTo: String, channelTargetType: MSALNativeAuthChannelType,
                                  codeLength: Int) {
            codeState = newState
            record("code")
        }
        func onSignUpVerifyCodeError(error: VerifyCodeError, newState: SignUpCodeRequiredState?) {
            record("code error: \(error.errorDescription ?? "")")
        }
        func onSignUpPasswordRequiredError(error: PasswordRequiredError, newState: SignUpPasswordRequiredState?) { record("password error") }
    }

    @Test("Sign-up attributes typed [String: Any]; a class adopting several delegates without their shared callbacks hears an error naming the one it lacks")
    @MainActor
    func sharedCallbacksAndAnyAttributes() async throws {
        let emulator = try await Self.startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try NativeAuthAPITests.makeApp(emulator)
        let screen = SharedCallbackScreen()
        let refused = MSALNativeAuthSignUpParameters(username: "ada.delegates@example.org")
        refused.attributes = ["displayName": "Ada", "born": Date()]
        await screen.wait { app.signUp(parameters: refused, delegate: screen) }
        #expect(screen.events.last == "start error: Attribute values must be strings, numbers or booleans.")

        let parameters = MSALNativeAuthSignUpParameters(username: "ada.delegates@example.org")
        parameters.password = "Str0ng!Passw0rd"
        var attributes: [String: Any] = [:]
        attributes["displayName"] = "Ada Lovelace"
        parameters.attributes = attributes
        await screen.wait { app.signUp(parameters: parameters, delegate: screen) }
        #expect(screen.events.last == "code")
        let code = try await NativeAuthAPITests.lastCode(emulator, for: "ada.delegates@example.org")
        await screen.wait { screen.codeState?.submitCode(code: code, delegate: screen) }
        #expect(screen.events.last == "code error: The delegate does not implement onSignUpCompleted, which this answer needs.")
    }

    @Test("Sign-up with everything up front, and the start errors: existing user, weak password, invalid attributes")
    func signUpUpFront() async throws {
        let emulator = try await Self.startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try NativeAuthAPITests.makeApp(emulator)
        func start(_ username: String, password: String? = nil, attributes: [String: any Sendable]? = nil) async throws(SignUpStartError) -> SignUpStartOutcome {
            let parameters = MSALNativeAuthSignUpParameters(username: username)
            parameters.password = password
            parameters.attributes = attributes
            return try await app.signUp(parameters: parameters)
        }
        do {
            _ = try await start(NativeAuthAPITests.passwordUser)
            Issue.record("an existing user signed up")
        } catch {
            #expect(error.isUserAlreadyExists && error.errorCodes == [1003037])
            #expect(error.errorUri?.hasSuffix("/error?code=1003037") == true)
        }
        do {
            _ = try await start("weak@example.org", password: "password")
            Issue.record("a weak password was accepted")
        } catch {
            #expect(error.isInvalidPassword)
        }
        do {
            _ = try await start(" ")
            Issue.record("an empty username was sent")
        } catch {
            #expect(error.isInvalidUsername)
        }
        guard case .attributesInvalid(let names) = try await start("bad@example.org", attributes: ["displayName": "B", "city": "42"]) else {
            Issue.record("expected the city to be rejected"); return
        }
        #expect(names == ["city"])

        guard case .codeRequired(let sent) = try await start("hedy@example.org", password: "Fr3quency!Hop",
                                                             attributes: ["displayName": "Hedy Lamarr", "city": "Vienna"]) else {
            Issue.record("expected a code"); return
        }
        let code = try await NativeAuthAPITests.lastCode(emulator, for: "hedy@example.org")
        guard case .completed(let state) = try await sent.newState.submitCode(code: code) else {
            Issue.record("expected the account to be created at once"); return
        }
        let result = try #require(try await state.signIn().result)
        #expect(result.account.username == "hedy@example.org")
    }

    @Test("Expired and used continuation tokens: typed general errors with the service's code; a finished state refuses")
    func expiredAndUsedTokens() async throws {
        let emulator = try await Self.startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try NativeAuthAPITests.makeApp(emulator)
        guard case .codeRequired(let sent) = try await app.signIn(parameters: MSALNativeAuthSignInParameters(username: NativeAuthAPITests.codeUser)) else {
            Issue.record("expected a code"); return
        }
        let code = try await NativeAuthAPITests.lastCode(emulator, for: NativeAuthAPITests.codeUser)
        emulator.clock.advance(by: 601)
        do {
            _ = try await sent.newState.submitCode(code: code)
            Issue.record("an expired continuation token was accepted")
        } catch {
            #expect(!error.isInvalidCode && !error.isBrowserRequired && error.errorCodes == [552003], "\(error)")
        }
        // The flow is over: the state refuses without a request.
        await #expect(throws: VerifyCodeError.self) { _ = try await sent.newState.submitCode(code: code) }

        // A completed sign-up's token signs in once; the second use is the service's invalid_grant.
        let sent2 = try await app.resetPassword(parameters: MSALNativeAuthResetPasswordParameters(username: NativeAuthAPITests.passwordUser))
        let password = try await sent2.newState.submitCode(code: try await NativeAuthAPITests.lastCode(emulator, for: NativeAuthAPITests.passwordUser))
        let after = try await password.submitPassword(password: "An0ther!Secret")
        _ = try await after.signIn()
        do {
            _ = try await after.signIn()
            Issue.record("a used continuation token signed in again")
        } catch {
            #expect(error.errorCodes == [55200], "\(error)")
        }
    }

    @Test("Password reset: code, a rejected password, the new one after polling, then the sign-in; start errors")
    func resetPassword() async throws {
        let emulator = try await Self.startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try NativeAuthAPITests.makeApp(emulator)
        let user = NativeAuthAPITests.passwordUser
        let sent = try await app.resetPassword(parameters: MSALNativeAuthResetPasswordParameters(username: user))
        #expect(sent.codeLength == 8)
        let code = try await NativeAuthAPITests.lastCode(emulator, for: user)
        let passwordState = try await sent.newState.submitCode(code: code)
        do {
            _ = try await passwordState.submitPassword(password: "Passw0rd!")
            Issue.record("the current password was accepted as the new one")
        } catch {
            #expect(error.isInvalidPassword)
        }
        let signInState = try await passwordState.submitPassword(password: "N3w!Passw0rd")
        let result = try #require(try await signInState.signIn().result)
        #expect(result.account.username == user)

        let old = MSALNativeAuthSignInParameters(username: user)
        old.password = "Passw0rd!"
        await #expect(throws: SignInStartError.self) { _ = try await app.signIn(parameters: old) }
        old.password = "N3w!Passw0rd"
        guard case .completed = try await app.signIn(parameters: old) else { Issue.record("expected a sign-in"); return }

        do {
            _ = try await app.resetPassword(parameters: MSALNativeAuthResetPasswordParameters(username: NativeAuthAPITests.codeUser))
            Issue.record("a user without a password reset it")
        } catch {
            #expect(error.isUserDoesNotHavePassword)
        }
        do {
            _ = try await app.resetPassword(parameters: MSALNativeAuthResetPasswordParameters(username: "nobody@example.org"))
            Issue.record("an unknown user reset a password")
        } catch {
            #expect(error.isUserNotFound)
        }
    }
}

/// The sign-up and password-reset machines without I/O: the requests they ask for and their answers to the service's.
@Suite("Native authentication: the sign-up and password-reset machines")
struct NativeFlowMachineTests {
    static func answer(_ json: String, status: Int = 200) -> NativeAuthAnswer {
        NativeAuthAnswer.parse(status: status, body: Data(json.utf8))
    }

    /// A sign-up machine awaiting the code, as after `start` and `challenge`.
    static func awaitingCode() -> NativeSignUpFlow {
        var flow = NativeSignUpFlow(username: "a@b.c", password: nil, attributes: nil, challengeTypes: [.oneTimePasscode])
        _ = flow.start()
        _ = flow.received(answer(#"{"continuation_token":"t1"}"#))
        _ = flow.received(answer(#"{"challenge_type":"oob","continuation_token":"t2","code_length":8,"challenge_target_label":"a***"}"#))
        return flow
    }

    @Test("Sign-up against a service that makes no progress: no attributes named, the same attributes asked again, endless wrong codes")
    func signUpMachineWithoutProgress() {
        var empty = Self.awaitingCode()
        _ = empty.submitCode("1234")
        #expect(empty.received(Self.answer(#"{"error":"attributes_required","continuation_token":"t3","required_attributes":[]}"#, status: 400))
            == .failed(.general, "The service asked for attributes without naming any.", canRetry: false))
        #expect(empty.stage == .finished)

        var again = Self.awaitingCode()
        _ = again.submitCode("1234")
        let city = #"{"error":"attributes_required","continuation_token":"t3","required_attributes":[{"name":"city"}]}"#
        #expect(again.received(Self.answer(city, status: 400)) == .attributesRequired([NativeAuthAttribute(name: "city", type: "string", required: false, regex: nil)]))
        _ = again.submitAttributes(#"{"city":"x"}"#)
        let more = #"{"error":"attributes_required","continuation_token":"t4","required_attributes":[{"name":"country"},{"name":"city"}]}"#
        #expect(again.received(Self.answer(more, status: 400)) != .failed(.general, nil, canRetry: false))
        #expect(again.stage == .awaitingAttributes("t4"))
        _ = again.submitAttributes(#"{"city":"x","country":"y"}"#)
        let same = #"{"error":"attributes_required","continuation_token":"t5","required_attributes":[{"name":"city"},{"name":"country"}]}"#
        #expect(again.received(Self.answer(same, status: 400))
            == .failed(.general, "The service asked again for the attributes just submitted (city, country).", canRetry: false))

        var codes = Self.awaitingCode()
        for attempt in 0..<NativeSignUpFlow.continueLimit {
            guard case .post = codes.submitCode("0000") else { Issue.record("attempt \(attempt) sent nothing"); return }
            _ = codes.received(Self.answer(#"{"error":"invalid_grant","suberror":"invalid_oob_value"}"#, status: 400))
        }
        guard case .failed(.general, _, canRetry: false) = codes.submitCode("0000") else {
            Issue.record("a sign-up went on past \(NativeSignUpFlow.continueLimit) continue requests"); return
        }
        #expect(codes.stage == .finished)
    }

    @Test("Sign-up: credential_required leads to the password challenge, attributes_required to the attributes")
    func signUpMachine() {
        var flow = NativeSignUpFlow(username: "a@b.c", password: nil, attributes: nil, challengeTypes: [.oneTimePasscode, .password])
        #expect(flow.start() == .post(NativeSignUpFlow.startEndpoint, [NativeAuthField("username", "a@b.c"),
                                                                        NativeAuthField("challenge_type", "oob password redirect")]))
        _ = flow.received(Self.answer(#"{"continuation_token":"t1"}"#))
        #expect(flow.received(Self.answer(#"{"challenge_type":"oob","continuation_token":"t2","code_length":8,"challenge_target_label":"a***"}"#))
            == .codeRequired(sentTo: "a***", channel: "email", codeLength: 8))
        _ = flow.submitCode("1234")
        #expect(flow.received(Self.answer(#"{"error":"credential_required","continuation_token":"t3"}"#, status: 400))
            == .challenge(NativeSignUpFlow.challengeEndpoint, token: "t3", types: [.oneTimePasscode, .password]))
        #expect(flow.received(Self.answer(#"{"challenge_type":"password","continuation_token":"t4"}"#)) == .passwordRequired)
        _ = flow.submitPassword("p")
        #expect(flow.received(Self.answer(#"{"error":"invalid_grant","suberror":"password_too_weak"}"#, status: 400))
            == .failed(.invalidPassword, nil, canRetry: true))
        #expect(flow.stage == .awaitingPassword("t4"))
        _ = flow.submitPassword("P4ss!word")
        let required = Self.answer(#"{"error":"attributes_required","continuation_token":"t5","required_attributes":[{"name":"city","type":"string","required":true,"options":{"regex":"^x$"}},{"type":"x"}]}"#, status: 400)
        #expect(flow.received(required) == .attributesRequired([NativeAuthAttribute(name: "city", type: "string", required: true, regex: "^x$")]))
        _ = flow.submitAttributes(#"{"city":"y"}"#)
        #expect(flow.received(Self.answer(#"{"error":"invalid_grant","suberror":"attribute_validation_failed","invalid_attributes":[{"name":"city"}]}"#, status: 400))
            == .attributesInvalid(["city"], canRetry: true))
        #expect(flow.stage == .awaitingAttributes("t5"))
        _ = flow.submitAttributes(#"{"city":"x"}"#)
        #expect(flow.received(Self.answer(#"{"continuation_token":"done"}"#)) == .completed(continuationToken: "done"))
    }

    @Test("Explanations before the service's message: a password change (50142) and multi-factor authentication (50076)")
    func explanations() {
        var flow = NativeSignInFlow(clientId: "c", username: "a@b.c", password: "p", scopes: [], challengeTypes: [.password])
        _ = flow.start()
        _ = flow.received(Self.answer(#"{"continuation_token":"t1"}"#))
        _ = flow.received(Self.answer(#"{"challenge_type":"password","continuation_token":"t2"}"#))
        let step = flow.redeemFailed(NativeAuthServerError(error: "invalid_request", description: "AADSTS50142: reset", errorCodes: [50142]))
        #expect(step == .failed(.general(NativeAuthMessages.passwordChangeRequired + "AADSTS50142: reset"), canRetry: false))
        #expect(NativeAuthMessages.explained("m", codes: [50076]) == NativeAuthMessages.multiFactorRequired + "m")
        #expect(NativeAuthMessages.explained("m", codes: [1]) == "m")
    }

    @Test("Password reset: polling until succeeded, at most six polls; a rejected password returns to the password state")
    func resetMachine() {
        var flow = NativeResetPasswordFlow(username: "a@b.c", challengeTypes: [.oneTimePasscode])
        _ = flow.start()
        #expect(flow.received(Self.answer(#"{"error":"invalid_request","error_codes":[500222]}"#, status: 400))
            == .failed(.userDoesNotHavePassword, nil, canRetry: false))
        var reset = NativeResetPasswordFlow(username: "a@b.c", challengeTypes: [.oneTimePasscode])
        _ = reset.start()
        _ = reset.received(Self.answer(#"{"continuation_token":"t1"}"#))
        _ = reset.received(Self.answer(#"{"challenge_type":"oob","continuation_token":"t2","code_length":8}"#))
        _ = reset.submitCode("1")
        #expect(reset.received(Self.answer(#"{"continuation_token":"t3","expires_in":600}"#)) == .passwordRequired)
        _ = reset.submitPassword("x")
        let poll = [NativeAuthField("continuation_token", "t4")]
        #expect(reset.received(Self.answer(#"{"continuation_token":"t4","poll_interval":2}"#))
            == .wait(seconds: 2, then: NativeResetPasswordFlow.pollEndpoint, poll))
        for _ in 2...NativeResetPasswordFlow.maximumPolls {
            #expect(reset.received(Self.answer(#"{"status":"in_progress"}"#)) == .wait(seconds: 2, then: NativeResetPasswordFlow.pollEndpoint, poll))
        }
        #expect(reset.received(Self.answer(#"{"status":"in_progress"}"#))
            == .failed(.general, "The password reset did not complete after 6 polls.", canRetry: false))

        var rejected = NativeResetPasswordFlow(username: "a@b.c", challengeTypes: [.oneTimePasscode])
        _ = rejected.start()
        _ = rejected.received(Self.answer(#"{"continuation_token":"t1"}"#))
        _ = rejected.received(Self.answer(#"{"challenge_type":"oob","continuation_token":"t2","code_length":8}"#))
        _ = rejected.submitCode("1")
        _ = rejected.received(Self.answer(#"{"continuation_token":"t3"}"#))
        _ = rejected.submitPassword("x")
        _ = rejected.received(Self.answer(#"{"continuation_token":"t4","poll_interval":0}"#))
        #expect(rejected.received(Self.answer(#"{"error":"invalid_grant","suberror":"password_banned"}"#, status: 400))
            == .failed(.invalidPassword, nil, canRetry: true))
        #expect(rejected.stage == .awaitingPassword("t3"))
        _ = rejected.submitPassword("y")
        _ = rejected.received(Self.answer(#"{"continuation_token":"t5","poll_interval":0}"#))
        #expect(rejected.received(Self.answer(#"{"status":"succeeded","continuation_token":"t6"}"#)) == .completed(continuationToken: "t6"))
    }
}
