import Foundation
import MSAL
import MSALEmulator
import MSALEmulatorCore
import MSALTestSupport
import MSALTesting
import Testing

/// A native sign-in whose first factor passed but the tenant wants more: a second factor (`mfa_required`) or a
/// strong method registered first (`registration_required`), through the public API against the emulator.
@Suite("Native authentication: second factor and strong-method registration")
struct NativeStrongAuthTests {
    static let mfaUser = EmulatorConfiguration.customerWithMFA
    static let registeringUser = EmulatorConfiguration.customerRegistering

    static func signInWithPassword(_ app: MSALNativeAuthPublicClientApplication, _ username: String) async throws -> SignInStartOutcome {
        let parameters = MSALNativeAuthSignInParameters(username: username)
        parameters.password = "Passw0rd!"
        parameters.scopes = ["User.Read"]
        return try await app.signIn(parameters: parameters)
    }

    @Test("Second factor (async): the methods listed, a code to one, a wrong code keeps the state, then tokens in the cache")
    func secondFactor() async throws {
        let emulator = try await NativeAuthAPITests.startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let app = try NativeAuthAPITests.makeApp(emulator, capabilities: [.mfaRequired], http: http)
        guard case .awaitingMFA(let methods, let state) = try await Self.signInWithPassword(app, Self.mfaUser) else {
            Issue.record("expected a second factor"); return
        }
        #expect(methods.map(\.id) == ["email-1", "sms-1"])
        #expect(methods[0].channelTargetType.isEmailType && methods[0].loginHint == "ma***@ex***.org")
        #expect(methods[1].channelTargetType.isSMSType && methods[1].loginHint == "+******00")
        #expect(try app.allAccounts().isEmpty)

        let sent = try await state.requestChallenge(authMethod: methods[0])
        #expect(sent.sentTo == "ma***@ex***.org" && sent.codeLength == 8)
        do {
            _ = try await sent.newState.submitChallenge(challenge: "00000000")
            Issue.record("a wrong code was accepted")
        } catch {
            #expect(error.isInvalidChallenge && !error.isBrowserRequired)
        }
        let code = try await NativeAuthAPITests.lastCode(emulator, for: "mary.backup@example.org")
        let result = try await sent.newState.submitChallenge(challenge: code)
        #expect(result.account.username == Self.mfaUser)
        #expect(try app.allAccounts().map(\.username) == [Self.mfaUser])
        let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account))
        #expect(!silent.accessToken.isEmpty)

        // On the wire: the capability on initiate, the method's id on challenge, mfa_oob on the token endpoint.
        let forms = http.requests.compactMap { request in request.body.map { String(decoding: $0, as: UTF8.self) } }
        #expect(forms.contains { $0.contains("capabilities=mfa_required") && $0.contains("username=") })
        #expect(forms.contains { $0.contains("id=email-1") })
        #expect(forms.contains { $0.contains("grant_type=mfa_oob") })
    }

    @Test("Second factor: an app without the capability is sent to the browser; a blocked method leaves the state usable")
    func secondFactorErrors() async throws {
        let emulator = try await NativeAuthAPITests.startEmulator { configuration in
            configuration.nativeAuth.strongAuthentication = [NativeAuthSettings.StrongAuthUser(username: Self.mfaUser, methods: [
                NativeAuthSettings.StrongMethod(id: "email-1", target: "mary.backup@example.org", blocked: true),
                NativeAuthSettings.StrongMethod(id: "email-2", target: "mary.other@example.org"),
            ])]
        }
        defer { Task { await emulator.stop() } }
        do {
            _ = try await Self.signInWithPassword(try NativeAuthAPITests.makeApp(emulator), Self.mfaUser)
            Issue.record("a second factor without the capability")
        } catch {
            #expect((error as? SignInStartError)?.isBrowserRequired == true)
        }
        let app = try NativeAuthAPITests.makeApp(emulator, capabilities: [.mfaRequired, .registrationRequired])
        guard case .awaitingMFA(let methods, let state) = try await Self.signInWithPassword(app, Self.mfaUser) else {
            Issue.record("expected a second factor"); return
        }
        do {
            _ = try await state.requestChallenge(authMethod: methods[0])
            Issue.record("a blocked method sent a code")
        } catch {
            #expect(error.isAuthMethodBlocked)
            #expect(error.errorDescription?.hasPrefix("The service blocked this authentication method") == true)
        }
        let sent = try await state.requestChallenge(authMethod: methods[1])
        // Another code on the state that awaits one (to the same method): the first code no longer works.
        let first = try await NativeAuthAPITests.lastCode(emulator, for: "mary.other@example.org")
        let again = try await sent.newState.requestChallenge(authMethod: methods[1])
        let second = try await NativeAuthAPITests.lastCode(emulator, for: "mary.other@example.org")
        if first != second {
            await #expect(throws: MFASubmitChallengeError.self) { _ = try await again.newState.submitChallenge(challenge: first) }
        }
        let result = try await again.newState.submitChallenge(challenge: second)
        #expect(result.account.username == Self.mfaUser)
    }

    @Test("Registration (async): invalid and blocked contacts refused, a code to the new one, then the method is the second factor")
    func registration() async throws {
        let emulator = try await NativeAuthAPITests.startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try NativeAuthAPITests.makeApp(emulator, capabilities: [.mfaRequired, .registrationRequired])
        guard case .strongAuthMethodRegistration(let methods, let state) = try await Self.signInWithPassword(app, Self.registeringUser) else {
            Issue.record("expected a registration"); return
        }
        let method = try #require(methods.first)
        #expect(method.id == "email" && method.channelTargetType.isEmailType)
        for (contact, check) in [("not an address", { (e: RegisterStrongAuthChallengeError) in e.isInvalidInput }),
                                 ("blocked@example.org", { (e: RegisterStrongAuthChallengeError) in e.isVerificationContactBlocked })] {
            do {
                _ = try await state.challengeAuthMethod(parameters: MSALNativeAuthChallengeAuthMethodParameters(authMethod: method,
                                                                                                                  verificationContact: contact))
                Issue.record("\(contact) was accepted")
            } catch {
                #expect(check(error), "\(contact): \(error)")
            }
        }
        let parameters = MSALNativeAuthChallengeAuthMethodParameters(authMethod: method, verificationContact: "linus.codes@example.org")
        guard case .verificationRequired(let sent) = try await state.challengeAuthMethod(parameters: parameters) else {
            Issue.record("expected a code"); return
        }
        #expect(sent.sentTo == "linus.codes@example.org" && sent.codeLength == 8)
        await #expect(throws: RegisterStrongAuthSubmitChallengeError.self) { _ = try await sent.newState.submitChallenge(challenge: "00000000") }
        let code = try await NativeAuthAPITests.lastCode(emulator, for: "linus.codes@example.org")
        let result = try await sent.newState.submitChallenge(challenge: code)
        #expect(result.account.username == Self.registeringUser)

        // The registered method is now the user's second factor.
        guard case .awaitingMFA(let second, _) = try await Self.signInWithPassword(app, Self.registeringUser) else {
            Issue.record("expected the registered method as second factor"); return
        }
        #expect(second.map(\.loginHint) == ["li***@ex***.org"])
    }

    @Test("Registration: the sign-in address is preverified (no code); after a sign-up the new user registers too")
    func preverifiedAndAfterSignUp() async throws {
        let newUser = "katherine@example.org"
        let emulator = try await NativeAuthAPITests.startEmulator { configuration in
            configuration.nativeAuth.strongAuthentication += [NativeAuthSettings.StrongAuthUser(username: newUser, methods: [])]
            configuration.nativeAuth.signUpAttributes = []
        }
        defer { Task { await emulator.stop() } }
        let app = try NativeAuthAPITests.makeApp(emulator, capabilities: [.registrationRequired])
        guard case .strongAuthMethodRegistration(let methods, let state) = try await Self.signInWithPassword(app, Self.registeringUser) else {
            Issue.record("expected a registration"); return
        }
        let own = MSALNativeAuthChallengeAuthMethodParameters(authMethod: methods[0], verificationContact: Self.registeringUser)
        guard case .completed(let result) = try await state.challengeAuthMethod(parameters: own) else {
            Issue.record("expected the sign-in address to need no code"); return
        }
        #expect(result.account.username == Self.registeringUser)

        let signUp = MSALNativeAuthSignUpParameters(username: newUser)
        signUp.password = "Str0ng!Passw0rd"
        guard case .codeRequired(let sent) = try await app.signUp(parameters: signUp) else { Issue.record("expected a code"); return }
        guard case .completed(let after) = try await sent.newState.submitCode(code: try await NativeAuthAPITests.lastCode(emulator, for: newUser)) else {
            Issue.record("expected the account to be created"); return
        }
        guard case .strongAuthMethodRegistration(let newMethods, let newState) = try await after.signIn() else {
            Issue.record("expected the new user to register a method"); return
        }
        let contact = MSALNativeAuthChallengeAuthMethodParameters(authMethod: newMethods[0], verificationContact: newUser)
        guard case .completed(let signedIn) = try await newState.challengeAuthMethod(parameters: contact) else {
            Issue.record("expected a sign-in"); return
        }
        #expect(signedIn.account.username == newUser)
    }

    @MainActor
    final class Screen: SignInStartDelegate, MFARequestChallengeDelegate, MFASubmitChallengeDelegate {
        var events: [String] = []
        var methods: [MSALAuthMethod] = []
        var awaiting: AwaitingMFAState?
        var required: MFARequiredState?
        let implementsMFA: Bool
        private var waiter: CheckedContinuation<Void, Never>?

        init(implementsMFA: Bool) { self.implementsMFA = implementsMFA }

        func next() async -> String {
            let seen = events.count
            while events.count == seen { await withCheckedContinuation { waiter = $0 } }
            return events[seen]
        }

        private func record(_ event: String) {
            events.append(event)
            waiter?.resume()
            waiter = nil
        }

        func onSignInStartError(error: SignInStartError) { record("start error: \(error.errorDescription ?? "")") }
        func onSignInAwaitingMFA(authMethods: [MSALAuthMethod], newState: AwaitingMFAState) {
            MainActor.assertIsolated()
            guard implementsMFA else { return }
            methods = authMethods
            awaiting = newState
            record("awaiting MFA")
        }
        func onMFARequestChallengeError(error: MFARequestChallengeError, newState: MFARequiredState?) { record("challenge error") }
        func onMFARequestChallengeVerificationRequired(newState: MFARequiredState, sentTo: String,
                                                       channelTargetType: MSALNativeAuthChannelType, codeLength: Int) {
            required = newState
            record("code sent to \(sentTo)")
        }
        func onMFASubmitChallengeError(error: MFASubmitChallengeError, newState: MFARequiredState?) {
            record("submit error: invalid \(error.isInvalidChallenge), state \(newState != nil)")
        }
        func onSignInCompleted(result: MSALNativeAuthUserAccountResult) { record("signed in \(result.account.username ?? "")") }
    }

    /// A screen that does not implement `onSignInAwaitingMFA` (MSAL's optional callback).
    @MainActor
    final class PlainScreen: SignInStartDelegate {
        var errors: [String] = []
        var waiter: CheckedContinuation<Void, Never>?
        func onSignInStartError(error: SignInStartError) {
            errors.append(error.errorDescription ?? "")
            waiter?.resume()
        }
    }

    @Test("Second factor (delegates): callbacks on the main actor; a delegate without onSignInAwaitingMFA hears an error naming it")
    @MainActor
    func secondFactorDelegates() async throws {
        let emulator = try await NativeAuthAPITests.startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try NativeAuthAPITests.makeApp(emulator, capabilities: [.mfaRequired])
        let screen = Screen(implementsMFA: true)
        app.signIn(username: Self.mfaUser, password: "Passw0rd!", delegate: screen)
        #expect(await screen.next() == "awaiting MFA")
        try #require(screen.awaiting).requestChallenge(authMethod: screen.methods[0], delegate: screen)
        #expect(await screen.next() == "code sent to ma***@ex***.org")
        try #require(screen.required).submitChallenge(challenge: "00000000", delegate: screen)
        #expect(await screen.next() == "submit error: invalid true, state true")
        let code = try await NativeAuthAPITests.lastCode(emulator, for: "mary.backup@example.org")
        try #require(screen.required).submitChallenge(challenge: code, delegate: screen)
        #expect(await screen.next() == "signed in \(Self.mfaUser)")

        let plain = PlainScreen()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            plain.waiter = continuation
            app.signIn(username: Self.mfaUser, password: "Passw0rd!", delegate: plain)
        }
        #expect(plain.errors.count == 1 && plain.errors[0].contains("onSignInAwaitingMFA"))
    }
}
