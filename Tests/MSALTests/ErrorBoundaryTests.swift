import MSALTesting
import Foundation
import MSALTestSupport
import Testing
import MSAL
@testable import MSALCore

/// Every public entry point reports cancellation, transport failures and foreign errors one way, always with the
/// request's correlation id. Faults are injected at MSAL's own seams: the HTTP client, the web authenticator and
/// the cache storage.
@Suite("Error boundary")
struct ErrorBoundaryTests {
    let provider = MSALScriptedIdentityProvider(host: "login-\(UUID().uuidString.prefix(8).lowercased()).example.com")

    /// An error type MSAL does not know.
    struct ForeignError: Error, Equatable { var detail = "foreign" }

    /// A transport in front of the fake provider that fails or stalls the token and device code endpoints, and
    /// answers the device code endpoint itself when it does not.
    final class FaultyTransport: MSALHTTPClient, @unchecked Sendable {
        enum Fault { case none, fail(any Error), stall }

        let provider: MSALScriptedIdentityProvider
        private let lock = NSLock()
        private var currentFault = Fault.none
        private var stalled = false
        private var faulted: [MSALHTTPRequest] = []

        init(_ provider: MSALScriptedIdentityProvider) { self.provider = provider }

        var fault: Fault {
            get { lock.withLock { currentFault } }
            set { lock.withLock { currentFault = newValue } }
        }
        var isStalled: Bool { lock.withLock { stalled } }
        /// Where stalled requests wait: opened when the test ends.
        let stall = Gate()
        var faultedRequests: [MSALHTTPRequest] { lock.withLock { faulted } }

        func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
            let path = request.url.path
            let isDeviceCode = path.hasSuffix("/oauth2/v2.0/devicecode")
            guard isDeviceCode || path.hasSuffix("/oauth2/v2.0/token") else { return try await provider.send(request) }
            switch fault {
            case .none:
                if isDeviceCode {
                    let body = #"{"device_code":"dc-1","user_code":"ABCD","verification_uri":"https://example.com/device","expires_in":900,"interval":5}"#
                    return MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
                }
                return try await provider.send(request)
            case .fail(let error):
                lock.withLock { faulted.append(request) }
                throw error
            case .stall:
                lock.withLock { faulted.append(request); stalled = true }
                // Held until the test ends (its gate opens then): a cancelled caller must return while it is held.
                try await stall.pass()
                throw URLError(.timedOut)
            }
        }
    }

    /// A web authenticator that throws an error of its own.
    struct ThrowingAuthenticator: MSALDirectWebAuthenticator {
        func present(_ url: URL, for request: MSALWebAuthenticationRequest) async throws -> MSALWebAuthenticationResponse {
            throw ForeignError()
        }
    }

    /// A cache storage whose reads fail with an error of its own.
    final class FailingStorage: MSALTokenCacheStorage, @unchecked Sendable {
        func currentVersion() throws -> MSALTokenCacheStorageVersion? {
            MSALTokenCacheStorageVersion(identity: 1, size: 1, modificationTime: 1)
        }
        func read() throws -> (data: Data, version: MSALTokenCacheStorageVersion)? { throw ForeignError(detail: "disk") }
        func write(_ data: Data) throws -> MSALTokenCacheStorageVersion { throw ForeignError(detail: "disk") }
        func setAside(version: MSALTokenCacheStorageVersion) throws -> String? { nil }
        func withExclusiveAccess<T>(_ body: () throws -> T) throws -> T { try body() }
    }

    // MARK: Helpers

    /// An application on the fake provider behind `transport`, with a signed-in account whose access token has
    /// expired (so a silent request goes to the token endpoint).
    private func signedInApp(_ transport: FaultyTransport) async throws -> (MSALPublicClientApplication, MSALAccount) {
        let clock = MSALTestClock()
        let app = try makeFakeApp(provider, clock: clock) { $0.httpClient = transport }
        let result = try await app.acquireToken(with: interactiveParameters(provider))
        clock.advance(7200)
        return (app, result.account)
    }

    private func silentParameters(_ account: MSALAccount, correlationId: UUID) -> MSALSilentTokenParameters {
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        parameters.correlationId = correlationId
        return parameters
    }

    private func deviceCodeParameters(correlationId: UUID) -> MSALDeviceCodeParameters {
        let parameters = MSALDeviceCodeParameters(scopes: ["User.Read"])
        parameters.correlationId = correlationId
        return parameters
    }

    /// The error `body` throws, which must be an ``MSALErrorInfo``.
    private func msalError<T>(_ body: () async throws -> T) async -> MSALErrorInfo? {
        do {
            _ = try await body()
            Issue.record("The call succeeded")
            return nil
        } catch let error as MSALErrorInfo {
            return error
        } catch {
            Issue.record("Not an MSALErrorInfo: \(type(of: error)) \(error)")
            return nil
        }
    }

    /// Everything an application could print of an error.
    private func printable(_ error: MSALErrorInfo) -> String {
        let ns = error as NSError
        return [error.description, error.errorDescription, ns.localizedDescription, "\(ns)", "\(ns.userInfo)",
                (error.underlyingError.map { "\($0 as NSError)" } ?? "")].joined(separator: "\n")
    }

    // MARK: Cancellation

    @Test func cancelledSilentRequestIsUserCanceledWithItsCorrelationId() async throws {
        let transport = FaultyTransport(provider)
        let (app, account) = try await signedInApp(transport)
        transport.fault = .stall
        let correlationId = UUID()
        let parameters = silentParameters(account, correlationId: correlationId)
        let task = Task { try await app.acquireTokenSilent(with: parameters) }
        try await eventually("the transport stalls") { transport.isStalled }
        defer { transport.stall.openGate() }
        task.cancel()
        // The refresh is shared with any other request for the same tokens: the cancelled caller stops waiting
        // for it at once (the request is still held), without cancelling it.
        let error = await msalError { try await value(of: task) }
        #expect(error?.code == .userCanceled)
        #expect(error?.internalCode == .internalErrorSessionCanceled)
        #expect(error?.correlationId == correlationId)
        #expect(error?.errorDescription == "The silent token request was cancelled.")
    }

    @Test func cancelledDeviceCodeRequestIsUserCanceledWithItsCorrelationId() async throws {
        let transport = FaultyTransport(provider)
        transport.fault = .stall
        let app = try makeFakeApp(provider) { $0.httpClient = transport }
        let correlationId = UUID()
        let parameters = deviceCodeParameters(correlationId: correlationId)
        let task = Task { try await app.acquireTokenWithDeviceCode(with: parameters) { _ in } }
        try await eventually("the transport stalls") { transport.isStalled }
        defer { transport.stall.openGate() }
        task.cancel()
        let error = await msalError { try await value(of: task) }
        #expect(error?.code == .userCanceled)
        #expect(error?.internalCode == .internalErrorSessionCanceled)
        #expect(error?.correlationId == correlationId)
    }

    @Test func transportReportingCancellationIsUserCanceledAndNotRetried() async throws {
        let transport = FaultyTransport(provider)
        let (app, account) = try await signedInApp(transport)
        transport.fault = .fail(URLError(.cancelled))
        let correlationId = UUID()
        let error = await msalError { try await app.acquireTokenSilent(with: silentParameters(account, correlationId: correlationId)) }
        #expect(error?.code == .userCanceled)
        #expect(error?.internalCode == .internalErrorSessionCanceled)
        #expect(error?.correlationId == correlationId)
        #expect(transport.faultedRequests.count == 1)
    }

    // MARK: Transport

    @Test(arguments: [(URLError.Code.timedOut, "the request timed out"),
                      (URLError.Code.cannotConnectToHost, "the connection was refused")])
    func transportFailureIsOneErrorWithoutRequestData(code: URLError.Code, kind: String) async throws {
        let transport = FaultyTransport(provider)
        let (app, account) = try await signedInApp(transport)
        let secretURL = "https://\(provider.host)/common/oauth2/v2.0/token?refresh_token=SECRET-QUERY-VALUE"
        transport.fault = .fail(URLError(code, userInfo: [NSURLErrorFailingURLErrorKey: URL(string: secretURL)!,
                                                          NSLocalizedDescriptionKey: "Failed: \(secretURL)"]))
        let silentId = UUID()
        let silent = await msalError { try await app.acquireTokenSilent(with: silentParameters(account, correlationId: silentId)) }
        let expected = "The identity provider (\(provider.host)) could not be reached: \(kind)."
        #expect(silent?.code == .serverError)
        #expect(silent?.internalCode == nil)
        #expect(silent?.errorDescription == expected)
        #expect(silent?.correlationId == silentId)
        #expect((silent?.underlyingError as? URLError)?.code == code)
        let refreshTokens = transport.faultedRequests.compactMap {
            FormEncoding.decode(String(decoding: $0.body ?? Data(), as: UTF8.self))["refresh_token"]
        }
        #expect(!refreshTokens.isEmpty)
        if let silent {
            let text = printable(silent)
            #expect(!text.contains("SECRET-QUERY-VALUE"))
            for token in refreshTokens { #expect(!text.contains(token)) }
        }

        // The device code flow reports the same failure in the same words.
        let deviceId = UUID()
        let device = await msalError {
            try await app.acquireTokenWithDeviceCode(with: deviceCodeParameters(correlationId: deviceId)) { _ in }
        }
        #expect(device?.code == .serverError)
        #expect(device?.errorDescription == expected)
        #expect(device?.correlationId == deviceId)
    }

    // MARK: Foreign errors

    @Test func foreignErrorFromTheWebAuthenticatorIsUnexpected() async throws {
        let app = try makeFakeApp(provider)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = ThrowingAuthenticator()
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        let correlationId = UUID()
        parameters.correlationId = correlationId
        let error = await msalError { try await app.acquireToken(with: parameters) }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .internalErrorUnexpected)
        #expect(error?.correlationId == correlationId)
        #expect(error?.underlyingError as? ForeignError == ForeignError())
    }

    @Test func foreignErrorFromTheCacheStorageIsUnexpected() throws {
        let app = try makeFakeApp(provider, storage: FailingStorage())
        #expect {
            _ = try app.allAccounts()
        } throws: { error in
            guard let info = error as? MSALErrorInfo else { return false }
            return info.internalCode == .internalErrorUnexpected && info.correlationId != nil
                && info.underlyingError as? ForeignError == ForeignError(detail: "disk")
        }
    }

    // MARK: Correlation ids

    @Test func everyErrorFromAPublicEntryCarriesTheCorrelationId() async throws {
        let transport = FaultyTransport(provider)
        let (app, account) = try await signedInApp(transport)

        // A refresh token the server no longer accepts: interaction required.
        provider.revokeAllRefreshTokens()
        let revokedId = UUID()
        let revoked = await msalError { try await app.acquireTokenSilent(with: silentParameters(account, correlationId: revokedId)) }
        #expect(revoked?.code == .interactionRequired)
        #expect(revoked?.correlationId == revokedId)

        // Bad input.
        let badScopesId = UUID()
        let badScopes = MSALSilentTokenParameters(scopes: [], account: account)
        badScopes.correlationId = badScopesId
        let invalid = await msalError { try await app.acquireTokenSilent(with: badScopes) }
        #expect(invalid?.internalCode == .internalErrorInvalidParameter)
        #expect(invalid?.correlationId == badScopesId)

        // The user declined in the browser.
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = MSALScriptedWebAuthenticator(provider: provider, redirectOverride: ["error": "access_denied", "code": ""])
        let declinedParameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        let declinedId = UUID()
        declinedParameters.correlationId = declinedId
        let declined = await msalError { try await app.acquireToken(with: declinedParameters) }
        #expect(declined?.correlationId == declinedId)

        // Cache-only calls get a correlation id of their own.
        let missing = await msalError { try app.account(forIdentifier: "no-such-account") }
        #expect(missing?.code == .interactionRequired)
        #expect(missing?.internalCode == .internalErrorAccountRequired)
        #expect(missing?.correlationId != nil)
    }

    // MARK: The mapping itself

    @Test func boundaryMapsEachKindOnce() {
        let id = UUID()
        let other = UUID()
        func map(_ error: any Error) -> MSALErrorInfo { ErrorBoundary.map(error, .silent, correlationId: id) }

        let kept = map(MSALErrorInfo.interactionRequired("Sign in again."))
        #expect(kept.code == .interactionRequired && kept.correlationId == id && kept.errorDescription == "Sign in again.")
        #expect(map(MSALErrorInfo.invalidParameter("x", correlationId: other)).correlationId == other)

        for cancellation in [CancellationError() as any Error, URLError(.cancelled)] {
            let error = map(cancellation)
            #expect(error.code == .userCanceled && error.internalCode == .internalErrorSessionCanceled)
            #expect(error.correlationId == id)
        }

        let transport = map(URLError(.notConnectedToInternet))
        #expect(transport.code == .serverError && transport.correlationId == id)
        #expect(transport.errorDescription == "The identity provider could not be reached: there is no network connection.")

        let foreign = map(ForeignError())
        #expect(foreign.internalCode == .internalErrorUnexpected && foreign.correlationId == id)
        #expect(!foreign.errorDescription.contains("foreign"))
    }

    @Test func boundaryTreatsForeignErrorsOfACancelledTaskAsCancellation() async {
        let task = Task { () -> MSALErrorInfo in
            withUnsafeCurrentTask { $0?.cancel() }
            return ErrorBoundary.map(ForeignError(), .deviceCode, correlationId: UUID())
        }
        let error = await task.value
        #expect(error.code == .userCanceled)
        #expect(error.errorDescription == "The device code sign-in was cancelled.")
    }

    @Test func bridgingIsUnchangedForTheNamedKinds() {
        let id = UUID()
        let server = MSALErrorInfo.server("HTTP 503.", status: 503, headers: ["Retry-After": "1"], correlationId: id) as NSError
        #expect(server.domain == MSALErrorDomain && server.code == MSALError.serverError.rawValue)
        #expect(server.userInfo[MSALHTTPResponseCodeKey] as? String == "503")
        #expect(server.userInfo[MSALCorrelationIDKey] as? String == id.uuidString)
        let cancelled = MSALErrorInfo.cancelled("The sign-out", correlationId: id) as NSError
        #expect(cancelled.code == MSALError.userCanceled.rawValue)
        #expect(cancelled.userInfo[MSALInternalErrorCodeKey] as? Int == MSALInternalError.internalErrorSessionCanceled.rawValue)
        let transport = MSALErrorInfo.transport(URLError(.timedOut), host: "h.example", correlationId: id) as NSError
        #expect((transport.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == URLError.Code.timedOut.rawValue)
    }
}
