#if os(Linux)
import Foundation
public import MSALEmulatorCore
import MSALDBus
import MSALSupport

/// The Microsoft identity broker, emulated on a D-Bus session bus: it owns `com.microsoft.identity.broker1` and
/// answers the methods of `com.microsoft.identity.Broker1` from an ``IdentityEmulator``'s directory and token issuer,
/// as Microsoft's broker answers them, so that broker clients (this library's, Microsoft's msalruntime through MSAL
/// for Python) sign in offline. Tokens it issues are bound to the emulated device (a `deviceid` claim) and pass the
/// tenants' ``EmulatedConditionalAccess``.
///
/// ```swift
/// let emulator = try await IdentityEmulator.start(configuration: .default.autoApprove(username: "adele@contoso.onmicrosoft.com"))
/// let broker = try EmulatedIdentityBroker.start(for: emulator, busAddress: address)
/// // ... sign in with MSALBrokerOptions(enabledOnLinux: true) ...
/// broker.stop()
/// ```
///
/// Interactive sign-ins are approved by `approve` (``EmulatedBrokerApprover``), by default by the configuration's
/// auto-approve user. A pending interactive call does not hold others up.
public final class EmulatedIdentityBroker: Sendable {
    /// The well-known name the broker owns.
    public static let busName = "com.microsoft.identity.broker1"
    /// The D-Bus interface of the broker's methods.
    public static let interface = "com.microsoft.identity.Broker1"

    /// The bus the broker serves on.
    public let busAddress: String
    private let running = LockedBox(true)
    private let stopped = LockedBox(false)

    private init(busAddress: String) {
        self.busAddress = busAddress
    }

    /// Starts serving on the bus at `busAddress` (by default `DBUS_SESSION_BUS_ADDRESS`), for `emulator`.
    ///
    /// - Throws: ``EmulatorStartError`` when there is no bus address, libdbus cannot be loaded, the bus cannot be
    ///   reached, or another process owns the broker's name.
    public static func start(for emulator: IdentityEmulator, busAddress: String? = nil,
                             approve: EmulatedBrokerApprover? = nil) throws -> EmulatedIdentityBroker {
        guard let address = busAddress ?? ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"],
              !address.isEmpty else {
            throw EmulatorStartError(message: "No D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set.")
        }
        let dbus: LibDBus
        let connection: LibDBus.Connection
        do {
            dbus = try LibDBus.shared.get()
            connection = try dbus.connect(address: address)
        } catch {
            throw EmulatorStartError(message: "Cannot reach the D-Bus session bus (\(error.message)).")
        }
        do {
            guard try dbus.own(connection, name: busName) else {
                dbus.close(connection)
                throw EmulatorStartError(message: "\(busName) is already owned on this bus: another broker runs there.")
            }
        } catch let error as LibDBus.Failure {
            dbus.close(connection)
            throw EmulatorStartError(message: "Cannot own \(busName) on the bus (\(error.message)).")
        }
        let broker = EmulatedIdentityBroker(busAddress: address)
        broker.serve(dbus: dbus, connection: connection, core: emulator.core,
                     issuerBase: emulator.httpsURL.absoluteString, approve: approve)
        return broker
    }

    /// Stops serving and gives up the name (the connection closes within a few milliseconds).
    public func stop() {
        running.set(false)
    }

    /// Whether the serving thread has closed its connection.
    public var isStopped: Bool { stopped.get() }

    private func serve(dbus: LibDBus, connection: LibDBus.Connection, core: EmulatorCore, issuerBase: String,
                       approve: EmulatedBrokerApprover?) {
        struct Owned: @unchecked Sendable { let connection: LibDBus.Connection }
        let owned = Owned(connection: connection)
        let (running, stopped) = (running, stopped)
        let base = issuerBase.hasSuffix("/") ? String(issuerBase.dropLast()) : issuerBase
        let thread = Thread {
            while running.get(), dbus.next(owned.connection, timeout: 20, { call in
                guard call.interface.isEmpty || call.interface == Self.interface else {
                    dbus.fail(owned.connection, call: call, name: "org.freedesktop.DBus.Error.UnknownInterface",
                              message: "No interface \(call.interface.prefix(128)).")
                    return
                }
                guard call.arguments.count == 3 else {
                    dbus.fail(owned.connection, call: call, name: "org.freedesktop.DBus.Error.InvalidArgs",
                              message: "Every method takes three strings: protocol version, correlation id, request.")
                    return
                }
                // Quick methods are answered on this thread, which owns the connection's I/O: an answer sent from
                // another thread would wait for this one's poll to time out. A sign-in, which waits for the user, is
                // answered from its own task.
                if call.member != "acquireTokenInteractively" {
                    let answer = LockedBox<Data??>(nil)
                    let done = DispatchSemaphore(value: 0)
                    Task {
                        answer.set(await core.brokerAnswer(call.member, correlationId: call.arguments[1],
                                                           request: Data(call.arguments[2].utf8), issuerBase: base,
                                                           approve: approve))
                        done.signal()
                    }
                    done.wait()
                    if let text = answer.get() ?? nil {
                        dbus.reply(owned.connection, to: call, [String(decoding: text, as: UTF8.self)])
                    } else {
                        dbus.fail(owned.connection, call: call, name: "org.freedesktop.DBus.Error.UnknownMethod",
                                  message: "No method \(call.member.prefix(128)).")
                    }
                    return
                }
                let kept = dbus.keep(call)
                Task {
                    let answer = await core.brokerAnswer(kept.member, correlationId: kept.arguments[1],
                                                         request: Data(kept.arguments[2].utf8), issuerBase: base,
                                                         approve: approve)
                    // Under the lock that closing takes: never an answer on a closed connection.
                    stopped.withLock { closed in
                        guard !closed else { return }
                        if let answer {
                            dbus.reply(owned.connection, to: kept, [String(decoding: answer, as: UTF8.self)])
                        } else {
                            dbus.fail(owned.connection, call: kept, name: "org.freedesktop.DBus.Error.UnknownMethod",
                                      message: "No method \(kept.member.prefix(128)).")
                        }
                    }
                    dbus.release(kept)
                }
            }) {}
            stopped.withLock { closed in
                closed = true
                dbus.close(owned.connection)
            }
        }
        thread.start()
    }
}
#endif
