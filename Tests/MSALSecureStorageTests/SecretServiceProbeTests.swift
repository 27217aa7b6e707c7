#if os(Linux)
import Foundation
import MSALDBus
import MSALTestSupport
import Testing
@testable import MSALCore
@testable import MSALSecureStorage

/// The bounded probe before the Secret Service tier, on a real private session bus: a bus where nothing owns or
/// starts the Secret Service, and one that starts a keyring on demand that never comes up, both skip the tier within
/// the probe's bound instead of leaving the process to D-Bus's own activation limit.
@Suite("The Secret Service probe on a real session bus", .serialized, .enabled(if: PrivateBus.available || PrivateBus.required))
struct SecretServiceProbeTests {
    @Test func aBusWithoutASecretServiceIsSkippedAtOnce() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let reason = try #require(ProtectionBackends.probeSecretService(bus.address, 2))
        #expect(reason.contains("nothing owns or starts org.freedesktop.secrets"))
    }

    /// A service file whose keyring never takes the name (as on a headless box where it cannot start): the probe
    /// ends at its bound (here 0.5 s), and the chain goes on to the next tier, saying why. The stand-in keyring lives
    /// 2 s only: processes the bus starts inherit descriptors other tests' processes leak to it.
    @Test func aKeyringThatNeverComesUpIsSkippedAtTheBound() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let service = bus.directory.appendingPathComponent("services/org.freedesktop.secrets.service")
        try Data("[D-BUS Service]\nName=org.freedesktop.secrets\nExec=/bin/sleep 2\n".utf8).write(to: service)
        let reason = try #require(ProtectionBackends.probeSecretService(bus.address, 0.5))
        #expect(reason.contains("did not come up"))

        let directory = SecureFixtures.temporaryDirectory()
        var configuration = SecureFixtures.configuration(directory, environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
        configuration.secretServiceProbeTimeout = 0.5
        let storage = MSALSecureTokenCacheStorage(
            configuration: configuration, logger: nil,
            backends: SecureFixtures.backends(secretService: MemorySecretService(), kernel: nil,
                                              probe: ProtectionBackends.probeSecretService))
        #expect(storage.protection == .keyFile)
        #expect(storage.steps.first?.reason.contains("did not come up") == true)
    }

    /// Where the Secret Service owns its name, the probe lets the tier be used.
    @Test func anOwnedNameAnswers() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let dbus = try LibDBus.shared.get()
        let connection = try dbus.connect(address: bus.address)
        defer { dbus.close(connection) }
        #expect(try dbus.own(connection, name: "org.freedesktop.secrets"))
        #expect(ProtectionBackends.probeSecretService(bus.address, 2) == nil)
    }
}
#endif
