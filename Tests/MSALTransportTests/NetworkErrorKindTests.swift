import Foundation
import MSALTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MSAL
@testable import MSALCore
import MSALEmulator
import Testing

/// Real failures on 127.0.0.1, through each transport and through an application: a closed port, an untrusted
/// certificate, a name that cannot resolve, a server that never answers. Each is its own `MSALNetworkErrorKind`.
@Suite("Network failure kinds")
struct NetworkErrorKindTests {
    /// A confidential client for `authority` on `transport`; its first app token request fetches the authority's
    /// metadata, which is where the failure shows.
    func appToken(_ authority: String, transport: TransportKind) async -> MSALErrorInfo? {
        do {
            let parsed = try MSALAuthority(url: URL(string: authority)!)
            let config = MSALConfidentialClientApplicationConfig(
                clientId: HostileIdentityProvider.clientId, clientCredential: .secret("unused-secret"), authority: parsed)
            // Known: its metadata is fetched from its own host, with no instance discovery anywhere else.
            config.knownAuthorities = [parsed]
            config.httpClient = transport.client
            config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
            let app = try MSALConfidentialClientApplication(configuration: config)
            _ = try await app.acquireTokenForClient(with: MSALClientCredentialParameters(scopes: ["api://x/.default"]))
            Issue.record("the request succeeded")
            return nil
        } catch let error as MSALErrorInfo {
            return error
        } catch {
            Issue.record("not an MSAL error: \(error)")
            return nil
        }
    }

    @Test("A closed port is connection_refused", arguments: TransportKind.allCases)
    func refused(transport: TransportKind) async throws {
        let (socket, port) = try #require(TestSockets.boundNotListening())
        defer { close(socket) }
        let error = await appToken("http://127.0.0.1:\(port)/\(HostileIdentityProvider.tenant)", transport: transport)
        #expect(error?.networkErrorKind == .connectionRefused, "\(String(describing: error))")
        #expect(error?.code == .serverError)
        #expect(error?.errorUserInfo[MSALNetworkErrorKindKey] as? String == "connection_refused")
    }

    @Test("An untrusted self-signed certificate authority is tls_trust_failure", arguments: TransportKind.allCases)
    func untrustedCertificate(transport: TransportKind) async throws {
        let emulator = try await IdentityEmulator.start(EmulatorConfiguration.default)
        defer { Task { await emulator.stop() } }
        let error = await appToken("\(emulator.httpsURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
                                   transport: transport)
        #expect(error?.networkErrorKind == .tlsTrustFailure,
                "\(String(describing: error)) \(String(describing: error?.underlyingError))")
        #expect(error?.errorDescription.contains("not trusted") == true)
    }

    @Test("A name under .invalid does not resolve: dns_failure", arguments: TransportKind.allCases)
    func unresolvableHost(transport: TransportKind) async throws {
        // `.invalid` never resolves (RFC 6761); a sandbox without any resolver fails the same way.
        let error = await appToken("https://nonexistent.invalid/\(HostileIdentityProvider.tenant)", transport: transport)
        #expect(error?.networkErrorKind == .dnsFailure, "\(String(describing: error))")
        #expect(error?.errorDescription.contains("nonexistent.invalid") == true)
    }

    @Test("A server that never answers is timed_out", arguments: TransportKind.allCases)
    func silentServer(transport: TransportKind) async throws {
        let hole = try await TransportTimeoutTests.startBlackHole()
        defer { Task { await hole.stop() } }
        let request = MSALHTTPRequest(method: "GET", url: URL(string: "\(hole.baseURL)/metadata")!, timeout: 1)
        do {
            _ = try await transport.client.send(request)
            Issue.record("a silent server answered")
        } catch {
            let info = MSALErrorInfo.transport(error, host: request.url.host, correlationId: nil)
            #expect(info.networkErrorKind == .timedOut, "\(info)")
        }
    }

    @Test("Every URLError code MSAL's transports throw has its kind")
    func urlErrorCodes() {
        let expected: [(URLError.Code, MSALNetworkErrorKind)] = [
            (.cannotFindHost, .dnsFailure), (.dnsLookupFailed, .dnsFailure), (.cannotConnectToHost, .connectionRefused),
            (.serverCertificateUntrusted, .tlsTrustFailure), (.serverCertificateHasUnknownRoot, .tlsTrustFailure),
            (.secureConnectionFailed, .tlsFailure), (.timedOut, .timedOut), (.networkConnectionLost, .connectionLost),
            (.notConnectedToInternet, .notConnected), (.badServerResponse, .other),
        ]
        for (code, kind) in expected { #expect(MSALNetworkErrorKind(code) == kind, "\(code)") }
    }
}
