import MSALTesting
import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

/// Numbers a hostile or broken identity provider sends (outside `Int`'s range, infinities, NaN, negative, not
/// numbers at all) end a call with a typed error or are clamped; they never take the process down.
@Suite("Hostile numbers from the network")
struct HostileNumberTests {
    // MARK: The conversion helper

    @Test func lifetimesAreBoundedOrRefused() {
        func seconds(_ value: JSONValue?) -> TimeInterval?? {
            if case .success(let s) = ExternalNumber.seconds(value) { return .some(s) }
            return .none
        }
        #expect(seconds(nil) == .some(nil))
        #expect(seconds(.null) == .some(nil))
        #expect(seconds(.number(3599)) == .some(3599))
        #expect(seconds(.string("3599")) == .some(3599))
        #expect(seconds(.number(0.5)) == .some(0.5))
        let max = ExternalNumber.maximumLifetime
        #expect(max == 315_360_000)
        for huge: JSONValue in [.number(1e300), .string("1e300"), .number(9.3e18), .string("9.3e18"), .number(Double.greatestFiniteMagnitude)] {
            #expect(seconds(huge) == .some(max), "\(huge)")
        }
        let refused: [(JSONValue, ExternalNumber.Problem)] = [
            (.number(-1), .negative), (.number(-1e300), .negative), (.string("-1e300"), .negative),
            (.string("inf"), .notANumber), (.string("nan"), .notANumber), (.string("-inf"), .notANumber),
            (.string("infinity"), .notANumber), (.string("0x10"), .notANumber), (.string("1e999"), .notFinite),
            (.number(.infinity), .notFinite), (.number(.nan), .notFinite), (.string(""), .notANumber),
            (.string(" 60"), .notANumber), (.bool(true), .notANumber), (.array([.number(1)]), .notANumber),
            (.object([:]), .notANumber),
        ]
        for (value, problem) in refused {
            if case .failure(let found) = ExternalNumber.seconds(value) {
                #expect(found == problem, "\(value)")
            } else {
                Issue.record("\(value) should be refused")
            }
        }
    }

    @Test func integersForDisplayNeverTrap() {
        #expect(ExternalNumber.clampedInteger(.nan) == 0)
        #expect(ExternalNumber.clampedInteger(.infinity) == Int.max)
        #expect(ExternalNumber.clampedInteger(-.infinity) == Int.min)
        #expect(ExternalNumber.clampedInteger(1e300) == Int.max)
        #expect(ExternalNumber.clampedInteger(-1e300) == Int.min)
        #expect(ExternalNumber.clampedInteger(Double(Int.max)) == Int.max)
        #expect(ExternalNumber.clampedInteger(9.3e18) == Int.max)
        #expect(ExternalNumber.clampedInteger(1_700_000_000.9) == 1_700_000_000)
        #expect(ExternalNumber.clampedInteger(-2.5) == -2)
        #expect(ExternalNumber.integerText(70008) == "70008")
        #expect(ExternalNumber.integerText(-3) == "-3")
        #expect(ExternalNumber.integerText(1e300) == nil)
        #expect(ExternalNumber.integerText(9.3e18) == nil)
        #expect(ExternalNumber.integerText(50142.5) == nil)
        #expect(ExternalNumber.integerText(.nan) == nil)
        #expect(ExternalNumber.nanoseconds(.nan) == 0)
        #expect(ExternalNumber.nanoseconds(-1) == 0)
        #expect(ExternalNumber.nanoseconds(1e300) == UInt64(ExternalNumber.maximumLifetime * 1e9))
        #expect(ExternalNumber.nanoseconds(1.5) == 1_500_000_000)
    }

    @Test func retryAfterIsBoundedOrIgnored() {
        func retryAfter(_ value: String) -> TimeInterval? {
            TokenEndpointClient.retryAfter(MSALHTTPResponse(statusCode: 429, headers: ["Retry-After": value], body: Data()), now: Date())
        }
        #expect(retryAfter("30") == 30)
        #expect(retryAfter("1e300") == ExternalNumber.maximumLifetime)
        #expect(retryAfter("inf") == nil)
        #expect(retryAfter("nan") == nil)
        #expect(retryAfter("-5") == nil)
        #expect(retryAfter("soon") == nil)
    }

    // MARK: Token responses through the library

    /// A token response carrying `member` with the raw JSON `value`; everything else is what a refresh needs.
    private func tokenBody(_ provider: MSALScriptedIdentityProvider, _ member: String, _ value: String) -> MSALHTTPResponse {
        var members = [#""token_type":"Bearer""#, #""scope":"User.Read""#, #""access_token":"at-hostile""#,
                       #""refresh_token":"rt-hostile""#, #""client_info":"\#(provider.clientInfo())""#,
                       #""expires_in":3600"#]
        members.removeAll { $0.hasPrefix("\"\(member)\":") }
        members.append("\"\(member)\":\(value)")
        return MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"],
                                body: Data(("{" + members.joined(separator: ",") + "}").utf8))
    }

    private func signedInApp(_ provider: MSALScriptedIdentityProvider, clock: MSALTestClock) async throws -> (MSALPublicClientApplication, MSALAccount) {
        let app = try makeFakeApp(provider, clock: clock)
        let result = try await app.acquireToken(with: interactiveParameters(provider))
        return (app, result.account)
    }

    private func forcedRefresh(_ account: MSALAccount) -> MSALSilentTokenParameters {
        let parameters = MSALSilentTokenParameters(scopes: ["User.Read"], account: account)
        parameters.forceRefresh = true
        return parameters
    }

    static let lifetimeMembers = ["expires_in", "ext_expires_in", "refresh_in"]
    /// Values refused as lifetimes (raw JSON).
    static let refusedLifetimes = [#""inf""#, #""nan""#, #""-inf""#, "-1e300", #""-1e300""#, "-1", #""1e999""#,
                                   #""soon""#, "true", "[3600]"]
    /// Values clamped to 10 years (raw JSON).
    static let clampedLifetimes = ["1e300", #""1e300""#, "9.3e18", #""9.3e18""#, "9223372036854775807"]

    @Test(arguments: lifetimeMembers)
    func unusableLifetimesInATokenResponseAreATypedError(member: String) async throws {
        let provider = MSALScriptedIdentityProvider(host: "login-\(UUID().uuidString.prefix(8).lowercased()).example.com")
        let clock = MSALTestClock()
        let (app, account) = try await signedInApp(provider, clock: clock)
        for value in Self.refusedLifetimes {
            provider.scripted = [tokenBody(provider, member, value)]
            do {
                _ = try await app.acquireTokenSilent(with: forcedRefresh(account))
                Issue.record("\(member): \(value) was accepted")
            } catch let error as MSALErrorInfo {
                #expect(error.code == .internal && error.internalCode == .internalErrorInvalidResponse, "\(member): \(value)")
                #expect(error.errorDescription.contains(member), "\(error.errorDescription)")
                #expect(!error.errorDescription.contains("at-hostile") && !error.errorDescription.contains("rt-hostile"))
            }
        }
        // The good tokens from the sign-in are still there.
        let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
        #expect(silent.accessToken != "at-hostile")
    }

    @Test(arguments: lifetimeMembers)
    func hugeLifetimesInATokenResponseAreClampedToTenYears(member: String) async throws {
        let provider = MSALScriptedIdentityProvider(host: "login-\(UUID().uuidString.prefix(8).lowercased()).example.com")
        let clock = MSALTestClock()
        let (app, account) = try await signedInApp(provider, clock: clock)
        for value in Self.clampedLifetimes {
            provider.scripted = [tokenBody(provider, member, value)]
            let result = try await app.acquireTokenSilent(with: forcedRefresh(account))
            #expect(result.accessToken == "at-hostile")
            let expiresOn = try #require(result.expiresOn)
            let lifetime = expiresOn.timeIntervalSince(clock.now())
            if member == "expires_in" {
                #expect(abs(lifetime - ExternalNumber.maximumLifetime) < 2, "\(value): \(lifetime)")
            } else {
                #expect(abs(lifetime - 3600) < 2, "\(value): \(lifetime)")
            }
            // The clamped entry is in the cache and served from it.
            let cached = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: account))
            #expect(cached.accessToken == "at-hostile")
        }
    }

    @Test func errorCodesOutsideTheIntegerRangeAreDropped() async throws {
        let provider = MSALScriptedIdentityProvider(host: "login-\(UUID().uuidString.prefix(8).lowercased()).example.com")
        let (app, account) = try await signedInApp(provider, clock: MSALTestClock())
        let body = #"{"error":"invalid_grant","error_description":"AADSTS70008: expired","#
            + #""error_codes":[1e300,-1e300,9.3e18,"1e300",50142.5,70008,"AADSTS50076"]}"#
        provider.scripted = [MSALHTTPResponse(statusCode: 400, headers: [:], body: Data(body.utf8))]
        do {
            _ = try await app.acquireTokenSilent(with: forcedRefresh(account))
            Issue.record("the error body was taken as a success")
        } catch let error as MSALErrorInfo {
            #expect(error.code == .interactionRequired)
            #expect(error.stsErrorCodes == ["1e300", "70008", "AADSTS50076"])
        }
    }

    // MARK: Device code responses through the library

    /// Answers discovery and metadata like Entra, the device authorization request with `deviceCodeBody`, and
    /// every token request with `authorization_declined`.
    final class HostileDeviceCodeProvider: MSALHTTPClient, @unchecked Sendable {
        let host = "login-\(UUID().uuidString.prefix(8).lowercased()).example.com"
        let tenant = "f645ad92-e38d-4d1a-b510-d1b09a74a8ca"
        let deviceCodeBody: String
        private let tokenPolls = LockedBox(0)
        var polls: Int { tokenPolls.get() }

        init(deviceCodeBody: String) { self.deviceCodeBody = deviceCodeBody }

        func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
            let path = request.url.path
            if path.hasSuffix("/discovery/instance") {
                return json(200, #"{"tenant_discovery_endpoint":"https://\#(host)/\#(tenant)/v2.0/.well-known/openid-configuration","#
                    + #""api-version":"1.1","metadata":[{"preferred_network":"\#(host)","preferred_cache":"\#(host)","aliases":["\#(host)"]}]}"#)
            }
            if path.hasSuffix("/.well-known/openid-configuration") {
                let base = "https://\(host)/\(tenant)"
                return json(200, #"{"authorization_endpoint":"\#(base)/oauth2/v2.0/authorize","token_endpoint":"\#(base)/oauth2/v2.0/token","#
                    + #""device_authorization_endpoint":"\#(base)/oauth2/v2.0/devicecode","issuer":"\#(base)/v2.0"}"#)
            }
            if path.hasSuffix("/devicecode") { return json(200, deviceCodeBody) }
            if path.hasSuffix("/token") {
                // The first poll (at once) is pending, so that the flow waits one (clamped) interval; then declined.
                let poll = tokenPolls.withLock { polls -> Int in
                    polls += 1
                    return polls
                }
                if poll == 1 { return json(400, #"{"error":"authorization_pending","error_description":"AADSTS70016: pending"}"#) }
                return json(400, #"{"error":"authorization_declined","error_description":"AADSTS70000: declined"}"#)
            }
            return json(404, #"{"error":"not_found"}"#)
        }

        private func json(_ status: Int, _ text: String) -> MSALHTTPResponse {
            MSALHTTPResponse(statusCode: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
        }
    }

    private func deviceCodeSignIn(expiresIn: String, interval: String) async throws
        -> (Result<MSALResult, any Error>, [MSALDeviceCode], [TimeInterval]) {
        let body = #"{"device_code":"DC-secret","user_code":"ABCD-EFGH","verification_uri":"https://example.com/devicelogin","#
            + #""expires_in":\#(expiresIn),"interval":\#(interval),"message":"Enter ABCD-EFGH"}"#
        let provider = HostileDeviceCodeProvider(deviceCodeBody: body)
        let authority = try MSALAADAuthority(url: URL(string: "https://\(provider.host)/\(provider.tenant)")!)
        let config = MSALPublicClientApplicationConfig(clientId: "b6c69a37-df96-4db0-9088-2ab96e1d8215", redirectUri: "http://localhost",
                                                       authority: authority)
        config.httpClient = provider
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        let clock = HookedClock(MSALTestClock())
        config.clock = clock
        let app = try MSALPublicClientApplication(configuration: config)
        let waits = LockedBox<[TimeInterval]>([])
        // No real waiting: record the wait the flow asked for.
        clock.hook.set { seconds in waits.withLock { $0.append(seconds) } }
        let codes = LockedBox<[MSALDeviceCode]>([])
        let result: Result<MSALResult, any Error>
        do {
            result = .success(try await app.acquireTokenWithDeviceCode(with: MSALDeviceCodeParameters(scopes: ["User.Read"])) { code in
                codes.withLock { $0.append(code) }
            })
        } catch {
            result = .failure(error)
        }
        return (result, codes.get(), waits.get())
    }

    @Test(arguments: [
        (#""inf""#, "5"), ("5", #""inf""#), (#""nan""#, "5"), ("5", #""nan""#), ("-1e300", "5"), ("5", "-1e300"),
        (#""-1e300""#, "5"), ("900", "-5"), (#""1e999""#, "5"), ("900", #""soon""#), ("900", "true"),
    ])
    func unusableDeviceCodeNumbersAreATypedError(expiresIn: String, interval: String) async throws {
        let (result, codes, _) = try await deviceCodeSignIn(expiresIn: expiresIn, interval: interval)
        guard case .failure(let failure) = result, let error = failure as? MSALErrorInfo else {
            Issue.record("expires_in \(expiresIn), interval \(interval) did not fail with an MSAL error")
            return
        }
        #expect(error.code == .internal && error.internalCode == .internalErrorInvalidResponse)
        #expect(error.errorDescription.contains("device authorization response"))
        #expect(!error.errorDescription.contains("DC-secret"))
        #expect(codes.isEmpty, "the handler must not see a refused device code")
    }

    @Test(arguments: [("1e300", "5"), (#""1e300""#, #""1e300""#), ("9.3e18", "9.3e18"), ("900", "1e300"), ("9223372036854775807", "1")])
    func hugeDeviceCodeNumbersAreClamped(expiresIn: String, interval: String) async throws {
        let (result, codes, waits) = try await deviceCodeSignIn(expiresIn: expiresIn, interval: interval)
        let code = try #require(codes.first)
        #expect(code.expiresIn <= ExternalNumber.maximumLifetime && code.interval <= ExternalNumber.maximumLifetime)
        #expect(code.expiresIn > 0 && code.interval >= 1)
        #expect(code.description.contains("ABCD-EFGH") && !code.description.contains("DC-secret"))
        #expect(waits.count == 1 && waits.allSatisfy { $0 <= ExternalNumber.maximumLifetime })
        guard case .failure(let failure) = result, let error = failure as? MSALErrorInfo else {
            Issue.record("the declined sign-in did not fail")
            return
        }
        #expect(error.code == .userCanceled)
    }
}
