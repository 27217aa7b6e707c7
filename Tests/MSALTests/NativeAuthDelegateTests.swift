import Foundation
import MSAL
import MSALEmulator
import MSALTestSupport
import Testing

/// The delegate form of native sign-in, written as an app's view controller writes it (a main-actor class that
/// implements MSAL for iOS/macOS's delegate protocols): callbacks on the main actor, retries on the state handed back.
@Suite("Native authentication: the delegate form")
struct NativeAuthDelegateTests {
    @MainActor
    final class SignInScreen: SignInStartDelegate, SignInPasswordRequiredDelegate, SignInVerifyCodeDelegate {
        enum Event: Equatable {
            case startError(userNotFound: Bool, invalidCredentials: Bool)
            case passwordRequired
            case codeRequired(sentTo: String, length: Int)
            case passwordError(invalidPassword: Bool, canRetry: Bool)
            case completed(String?)
        }

        var events: [Event] = []
        var passwordState: SignInPasswordRequiredState?
        var codeState: SignInCodeRequiredState?
        private var waiter: CheckedContinuation<Void, Never>?

        func next() async -> Event {
            let seen = events.count
            while events.count == seen {
                await withCheckedContinuation { waiter = $0 }
            }
            return events[seen]
        }

        private func record(_ event: Event) {
            events.append(event)
            waiter?.resume()
            waiter = nil
        }

        func onSignInStartError(error: SignInStartError) {
            record(.startError(userNotFound: error.isUserNotFound, invalidCredentials: error.isInvalidCredentials))
        }

        func onSignInPasswordRequired(newState: SignInPasswordRequiredState) {
            MainActor.assertIsolated()
            passwordState = newState
            record(.passwordRequired)
        }

        func onSignInCodeRequired(newState: SignInCodeRequiredState, sentTo: String, channelTargetType: MSALNativeAuthChannelType,
                                  codeLength: Int) {
            codeState = newState
            record(.codeRequired(sentTo: sentTo, length: codeLength))
        }

        func onSignInPasswordRequiredError(error: PasswordRequiredError, newState: SignInPasswordRequiredState?) {
            passwordState = newState
            record(.passwordError(invalidPassword: error.isInvalidPassword, canRetry: newState != nil))
        }

        func onSignInVerifyCodeError(error: VerifyCodeError, newState: SignInCodeRequiredState?) {}

        func onSignInCompleted(result: MSALNativeAuthUserAccountResult) {
            record(.completed(result.account.username))
        }
    }

    @MainActor
    @Test("Password asked for, a wrong one retried on the state handed back, then signed in")
    func passwordSignIn() async throws {
        let emulator = try await NativeAuthAPITests.startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try NativeAuthAPITests.makeApp(emulator)
        let screen = SignInScreen()
        app.signIn(username: NativeAuthAPITests.passwordUser, delegate: screen)
        #expect(await screen.next() == .passwordRequired)
        let state = try #require(screen.passwordState)
        state.submitPassword(password: "wrong", delegate: screen)
        #expect(await screen.next() == .passwordError(invalidPassword: true, canRetry: true))
        try #require(screen.passwordState).submitPassword(password: "Passw0rd!", delegate: screen)
        #expect(await screen.next() == .completed(NativeAuthAPITests.passwordUser))
    }

    @MainActor
    @Test("Code sign-in and an unknown user through the delegate")
    func codeSignInAndUnknownUser() async throws {
        let emulator = try await NativeAuthAPITests.startEmulator()
        defer { Task { await emulator.stop() } }
        let app = try NativeAuthAPITests.makeApp(emulator)
        let screen = SignInScreen()
        app.signIn(parameters: MSALNativeAuthSignInParameters(username: "nobody@example.org"), delegate: screen)
        #expect(await screen.next() == .startError(userNotFound: true, invalidCredentials: false))
        app.signIn(parameters: MSALNativeAuthSignInParameters(username: NativeAuthAPITests.codeUser), delegate: screen)
        #expect(await screen.next() == .codeRequired(sentTo: "ol***@ex***.org", length: 8))
        let code = try await NativeAuthAPITests.lastCode(emulator, for: NativeAuthAPITests.codeUser)
        try #require(screen.codeState).submitCode(code: code, delegate: screen)
        #expect(await screen.next() == .completed(NativeAuthAPITests.codeUser))
    }
}
