import Foundation
import MSAL
import MSALEmulator
import MSALLoopback
import NIOCore
import NIOPosix
import Testing
import MSALTestSupport

/// Redirect URIs that used to hang or leave a socket to another process: port 0, `localhost` on both address
/// families, userinfo.
@Suite("Loopback redirect URIs", .serialized)
struct LoopbackRedirectURITests {
    @Test("Port 0 means any port: the browser is sent the port actually bound, and the sign-in completes")
    func portZeroIsAnyPort() async throws {
        let emulator = try await IdentityEmulator.start()
        defer { Task { await emulator.stop() } }
        let app = try makeApplication(emulator, redirectUri: "http://127.0.0.1:0/cb")
        let opener = AnsweringOpener(answer: ["error": "access_denied"])
        let parameters = interactiveParameters(["User.Read"], MSALSystemBrowserWebAuthenticator(
            opener: opener, timeout: .seconds(20), output: { _ in }))
        await #expect { try await app.acquireToken(with: parameters) } throws: { error in
            // The answer reached the listener (a hang would end in the 20 s timeout as userCanceled instead).
            (error as? MSALErrorInfo)?.oauthError == "access_denied"
        }
        let redirect = try #require(opener.query()["redirect_uri"].flatMap(URLComponents.init(string:)))
        #expect(redirect.port != nil && redirect.port != 0)
        #expect(redirect.path == "/cb")
    }

    @Test("A redirect URI with a user name or password is refused",
          arguments: ["http://user@localhost/cb", "http://user:secret@127.0.0.1:8400/cb"])
    func userinfoIsRefused(_ uri: String) async throws {
        let authenticator = MSALSystemBrowserWebAuthenticator(opener: SilentOpener(), output: { _ in })
        let request = MSALWebAuthenticationRequest(redirectUri: uri, state: "s", correlationId: UUID(),
                                                   prefersEphemeralSession: false)
        await #expect { try await authenticator.signIn(request) } throws: { error in
            (error as? MSALErrorInfo)?.internalCode == .internalErrorInvalidRedirectURI
        }
    }

    @Test("For localhost the listener holds the port on IPv4 and IPv6, so no other process can take either")
    func localhostBindsBothFamilies() async throws {
        let listener = try await LoopbackRedirectListener.start(LoopbackConfiguration(
            path: "/", expectedState: "s", bindAddresses: ["127.0.0.1", "::1"], bindsEveryAddress: true))
        defer { Task { await listener.close() } }
        let ipv6Available = listener.addresses.contains("::1")
        #expect(listener.addresses.first == "127.0.0.1")
        for address in ipv6Available ? ["127.0.0.1", "::1"] : ["127.0.0.1"] {
            // Another process binding the same port on either family fails.
            await #expect(throws: (any Error).self) {
                let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .bind(host: address, port: listener.port).get()
                try await channel.close()
            }
        }
    }

    @Test("When the other family's port is taken, another port is chosen rather than half a listener")
    func takenIPv6PortIsAvoided() async throws {
        // Hold [::1]:P first; a listener that may not pick P must end up on another port for both families.
        guard let squatter = try? await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "::1", port: 0).get(), let port = squatter.localAddress?.port else {
            return // No IPv6 loopback on this machine: nothing can squat on it either.
        }
        defer { squatter.close(promise: nil) }
        let fixed = LoopbackConfiguration(path: "/", expectedState: "s", port: port,
                                          bindAddresses: ["127.0.0.1", "::1"], bindsEveryAddress: true)
        await #expect(throws: LoopbackListenerError.self) { _ = try await LoopbackRedirectListener.start(fixed) }
        // The IPv4 socket of the failed attempt was released. Its close completes on the event loop, and the
        // ephemeral port may briefly serve another test's client socket: try for up to two seconds.
        var bound = false
        for _ in 0..<20 where !bound {
            if let probe = try? await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: port).get() {
                try await probe.close()
                bound = true
            } else {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(bound, "127.0.0.1:\(port) stayed taken after the failed start")
    }
}
