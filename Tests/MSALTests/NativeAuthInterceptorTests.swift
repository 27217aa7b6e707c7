import Foundation
import MSAL
import MSALEmulator
import MSALEmulatorCore
import MSALTestSupport
import MSALTesting
import Testing

/// The app's request interceptor (`requestInterceptor`): its `x-` headers on every native-authentication request,
/// MSAL's reserved names and unsafe values left out, and a block never called does not hold a request past the
/// timeout on the application's clock.
@Suite("Native authentication: the request interceptor")
struct NativeAuthInterceptorTests {
    final class Interceptor: MSALNativeAuthRequestInterceptor, @unchecked Sendable {
        let headers: [String: String]?
        let answers: Bool
        private let lock = NSLock()
        private var urls: [URL] = []

        init(headers: [String: String]?, answers: Bool = true) {
            self.headers = headers
            self.answers = answers
        }

        var seen: [URL] { lock.withLock { urls } }

        func addAdditionalHeaderFields(_ requestUrl: URL?, completionBlock: @escaping MSALNativeAuthRequestInterceptorAddHeaderCompletionBlock) {
            lock.withLock { if let requestUrl { urls.append(requestUrl) } }
            guard answers else { return }
            // Answered later, from another thread, as an app that looks its values up would.
            let headers = headers
            DispatchQueue.global().async { completionBlock(headers) }
        }
    }

    static func app(_ emulator: IdentityEmulator, _ interceptor: Interceptor, http: MSALRecordingHTTPClient,
                    clock: (any MSALClock)? = nil) throws -> MSALNativeAuthPublicClientApplication {
        let authority = try MSALCIAMAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(NativeAuthAPITests.tenant)")!)
        let config = MSALNativeAuthPublicClientApplicationConfig(clientId: NativeAuthAPITests.clientId, authority: authority,
                                                                 challengeTypes: [.OOB, .password])
        config.httpClient = http
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        config.requestInterceptor = interceptor
        if let clock { config.clock = clock }
        return try MSALNativeAuthPublicClientApplication(nativeAuthConfiguration: config)
    }

    @Test("The app's x- headers on every native request; reserved names and unsafe values are left out")
    func headersAdded() async throws {
        let emulator = try await NativeAuthAPITests.startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let interceptor = Interceptor(headers: ["x-trace-id": "trace-42", "X-MS-Hijack": "1", "x-client-SKU": "fake",
                                                "Authorization": "Bearer stolen", "x-bad": "a\r\nInjected: 1"])
        let app = try Self.app(emulator, interceptor, http: http)
        let parameters = MSALNativeAuthSignInParameters(username: NativeAuthAPITests.passwordUser)
        parameters.password = "Passw0rd!"
        guard case .completed = try await app.signIn(parameters: parameters) else { Issue.record("expected a sign-in"); return }
        let native = http.requests.filter { $0.method == "POST" }
        #expect(native.map(\.url.lastPathComponent) == ["initiate", "challenge", "token"])
        for request in native {
            #expect(request.headers["x-trace-id"] == "trace-42", "\(request.url)")
            let names = Set(request.headers.keys.map { $0.lowercased() })
            #expect(!names.contains("x-ms-hijack") && !names.contains("authorization") && !names.contains("x-bad"))
            #expect(request.headers.first { $0.key.lowercased() == "x-client-sku" }?.value != "fake")
        }
        #expect(interceptor.seen.map(\.lastPathComponent) == ["initiate", "challenge", "token"])
    }

    @Test("A block never called: the request goes without the headers after the timeout on the app's clock")
    func blockNeverCalled() async throws {
        let emulator = try await NativeAuthAPITests.startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let clock = MSALTestClock(sleeps: .waitForAdvance)
        let app = try Self.app(emulator, Interceptor(headers: ["x-trace-id": "t"], answers: false), http: http, clock: clock)
        let signIn = Task { try await app.signIn(parameters: MSALNativeAuthSignInParameters(username: NativeAuthAPITests.codeUser)) }
        for round in 0..<2 {
            guard await clock.waitForSleepers(1) else {
                // The sign-in stops waiting on the interceptor when cancelled: the test never hangs.
                signIn.cancel()
                Issue.record("round \(round): no request waited on the interceptor; \(http.requests.map(\.url.path))")
                _ = try? await signIn.value
                return
            }
            #expect(http.requests.filter { $0.method == "POST" }.isEmpty || http.requests.last?.headers["x-trace-id"] == nil)
            clock.advance(MSALNativeAuthRequestInterceptorTimeout)
        }
        guard case .codeRequired = try await signIn.value else { Issue.record("expected a code"); return }
        #expect(http.requests.filter { $0.method == "POST" }.allSatisfy { $0.headers["x-trace-id"] == nil })
    }

    @Test("A cancelled sign-in stops waiting on an interceptor that never answers")
    func cancelledWhileWaiting() async throws {
        let emulator = try await NativeAuthAPITests.startEmulator()
        defer { Task { await emulator.stop() } }
        let http = MSALRecordingHTTPClient()
        let clock = MSALTestClock(sleeps: .waitForAdvance)
        let app = try Self.app(emulator, Interceptor(headers: nil, answers: false), http: http, clock: clock)
        let signIn = Task { try await app.signIn(parameters: MSALNativeAuthSignInParameters(username: NativeAuthAPITests.codeUser)) }
        #expect(await clock.waitForSleepers(1))
        signIn.cancel()
        await #expect(throws: (any Error).self) { _ = try await signIn.value }
    }
}
