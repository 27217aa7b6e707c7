public import Foundation
public import MSALCore
import MSALSupport
import MSALDBus

#if os(Linux)
/// The Microsoft identity broker on the D-Bus session bus (`com.microsoft.identity.broker1`, object
/// `/com/microsoft/identity/broker1`, interface `com.microsoft.identity.Broker1`), through the system's libdbus.
///
/// Each call opens its own private connection to the bus, sends the method's three strings (`"0.0"`, the correlation
/// id, the request JSON) and waits for the answer on its own thread: at most ``silentTimeout`` for a silent call, the
/// user's time for an interactive one. Cancelling the task closes the connection, which ends the wait. A bus or
/// broker that is not there, or that does not answer, is ``MSALInternalError/internalBrokerNotAvailable``.
public struct MSALDBusBrokerTransport: MSALBrokerTransport {
    public static let busName = "com.microsoft.identity.broker1"
    public static let objectPath = "/com/microsoft/identity/broker1"
    public static let interface = "com.microsoft.identity.Broker1"
    public static let protocolVersion = "0.0"

    /// The session bus's address.
    public let address: String
    /// How long a silent call may take (Microsoft's client waits five minutes; a silent call that takes more than
    /// this is treated as no broker, and the library runs its own flow).
    public var silentTimeout: TimeInterval = 30
    /// How long the broker has to answer `Ping`, as Microsoft's client checks it before using it.
    public var pingTimeout: TimeInterval = 5

    /// The broker on the session bus of `environment`: `DBUS_SESSION_BUS_ADDRESS`, else the bus socket in
    /// `XDG_RUNTIME_DIR`; nil when neither names one.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty {
            self.address = address
        } else if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
                  FileManager.default.fileExists(atPath: runtime + "/bus") {
            self.address = "unix:path=\(runtime)/bus"
        } else {
            return nil
        }
    }

    /// The broker at the bus `address`.
    public init(address: String) {
        self.address = address
    }

    /// Checks that a broker answers on the bus (`org.freedesktop.DBus.Peer.Ping`), within ``pingTimeout``.
    public func ping() async throws {
        let pingTimeout = pingTimeout
        _ = try await blocking(timeout: pingTimeout, correlationId: nil) { dbus, connection throws(LibDBus.Failure) in
            let owner = try Self.owner(dbus, connection, timeout: Self.milliseconds(pingTimeout))
            return try dbus.call(connection, destination: owner, path: Self.objectPath,
                                 interface: "org.freedesktop.DBus.Peer", method: "Ping", arguments: [],
                                 timeout: Self.milliseconds(pingTimeout))
        }
    }

    /// The failure name of a broker name owned by another user.
    static let notOurBroker = "com.microsoft.identity.msal.BrokerOfAnotherUser"

    /// The unique name of the process that owns the broker's name (started on demand when the bus can start it),
    /// checked to run as this process's user: any process may take a name on the session bus first, and only the
    /// user's own broker may see its requests (neither libmsalruntime nor MSAL for Python checks this). Calls then go
    /// to that unique name, so the owner cannot change between the check and the call.
    static func owner(_ dbus: LibDBus, _ connection: LibDBus.Connection, timeout: Int32) throws(LibDBus.Failure) -> String {
        func nameOwner() throws(LibDBus.Failure) -> String {
            try dbus.call(connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                          interface: "org.freedesktop.DBus", method: "GetNameOwner", arguments: [busName],
                          timeout: timeout).first ?? ""
        }
        var owner: String
        do {
            owner = try nameOwner()
        } catch where error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            // A broker the bus starts on demand (its service file): started by a `Ping` to its name, then asked again.
            _ = try dbus.call(connection, destination: busName, path: objectPath, interface: "org.freedesktop.DBus.Peer",
                              method: "Ping", arguments: [], timeout: timeout)
            owner = try nameOwner()
        }
        guard owner.hasPrefix(":"), owner.utf8.count <= 255 else {
            throw LibDBus.Failure(name: "org.freedesktop.DBus.Error.NameHasNoOwner", message: "no owner")
        }
        let uid = try dbus.callForUInt32(connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                         interface: "org.freedesktop.DBus", method: "GetConnectionUnixUser",
                                         arguments: [owner], timeout: timeout)
        guard uid == getuid() else {
            throw LibDBus.Failure(name: notOurBroker, message: "the broker's name is owned by uid \(uid)")
        }
        return owner
    }

    public func call(_ method: MSALBrokerMethod, correlationId: UUID, request: Data, interactive: Bool) async throws -> Data {
        let text = String(decoding: request, as: UTF8.self)
        let timeout: TimeInterval? = interactive ? nil : silentTimeout
        let ownerTimeout = Self.milliseconds(pingTimeout)
        let answer = try await blocking(timeout: timeout, correlationId: correlationId) { dbus, connection throws(LibDBus.Failure) in
            let owner = try Self.owner(dbus, connection, timeout: ownerTimeout)
            return try dbus.call(connection, destination: owner, path: Self.objectPath, interface: Self.interface,
                          method: method.rawValue,
                          arguments: [Self.protocolVersion, correlationId.uuidString.lowercased(), text],
                          timeout: timeout.map(Self.milliseconds) ?? LibDBus.infinite)
        }
        guard let first = answer.first else {
            throw MSALErrorInfo.invalidResponse("The broker's \(method.rawValue) answer holds no string.", correlationId: correlationId)
        }
        return Data(first.utf8)
    }

    static func milliseconds(_ seconds: TimeInterval) -> Int32 {
        Int32(clamping: Int((seconds * 1000).rounded()))
    }

    /// Runs `body` on a connection of its own, on a thread of its own; cancelling the task closes the connection.
    private func blocking(timeout: TimeInterval?, correlationId: UUID?,
                          _ body: @escaping @Sendable (LibDBus, LibDBus.Connection) throws(LibDBus.Failure) -> [String])
        async throws -> [String] {
        let dbus: LibDBus
        switch LibDBus.shared {
        case .success(let loaded): dbus = loaded
        case .failure(let failure):
            throw MSALErrorInfo.internal(.internalBrokerNotAvailable,
                                         "The identity broker cannot be used: \(failure.message).", correlationId: correlationId)
        }
        let address = self.address
        let open = OpenConnection()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[String], any Error>) in
                let thread = Thread {
                    do throws(LibDBus.Failure) {
                        let connection = try dbus.connect(address: address)
                        guard open.start(connection) else {
                            dbus.close(connection)
                            continuation.resume(throwing: MSALErrorInfo.cancelled("The broker call", correlationId: correlationId))
                            return
                        }
                        let result: Result<[String], LibDBus.Failure>
                        do throws(LibDBus.Failure) {
                            result = .success(try body(dbus, connection))
                        } catch {
                            result = .failure(error)
                        }
                        let cancelled = open.finish()
                        dbus.close(connection)
                        switch result {
                        case .success(let strings): continuation.resume(returning: strings)
                        case .failure(let failure):
                            continuation.resume(throwing: cancelled
                                ? MSALErrorInfo.cancelled("The broker call", correlationId: correlationId)
                                : Self.error(failure, timeout: timeout, correlationId: correlationId))
                        }
                    } catch {
                        continuation.resume(throwing: Self.error(error, timeout: timeout, correlationId: correlationId))
                    }
                }
                thread.name = "msal-broker-call"
                thread.start()
            }
        } onCancel: {
            open.cancel { dbus.interrupt($0) }
        }
    }

    /// The MSAL error for a D-Bus failure: every way of not getting an answer means no usable broker.
    static func error(_ failure: LibDBus.Failure, timeout: TimeInterval?, correlationId: UUID?) -> MSALErrorInfo {
        let why: String
        switch failure.name {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            why = "no broker is on the session bus"
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.TimedOut":
            why = timeout.map { "the broker did not answer within \(Int($0.rounded())) s" } ?? "the broker did not answer"
        case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownObject",
             "org.freedesktop.DBus.Error.UnknownInterface":
            why = "the program on the broker's name does not offer the broker's interface"
        case notOurBroker:
            why = "the program on the broker's name runs as another user"
        case LibDBus.replyTooLarge:
            why = "its answer is larger than 1 MiB"
        case "org.freedesktop.DBus.Error.NoServer", "org.freedesktop.DBus.Error.FileNotFound",
             "org.freedesktop.DBus.Error.BadAddress", "org.freedesktop.DBus.Error.Disconnected":
            why = "the session bus cannot be reached"
        default:
            why = "the bus answered \(failure.name)"
        }
        return .internal(.internalBrokerNotAvailable, "The identity broker cannot be used: \(why).", correlationId: correlationId)
    }
}

/// The connection a call is using, so that cancellation can close it, and never after its owner released it.
private final class OpenConnection: Sendable {
    private enum State { case idle, open(LibDBus.Connection), cancelled, done }
    private let state = LockedBox<State>(.idle)

    /// Records the call's connection; false when the call was cancelled before it started.
    func start(_ connection: LibDBus.Connection) -> Bool {
        state.withLock { state in
            if case .cancelled = state { return false }
            state = .open(connection)
            return true
        }
    }

    /// Marks the call over; whether it was cancelled meanwhile.
    func finish() -> Bool {
        state.withLock { state in
            let wasCancelled: Bool
            if case .cancelled = state { wasCancelled = true } else { wasCancelled = false }
            state = .done
            return wasCancelled
        }
    }

    /// Cancels the call: closes its connection if it is running (under the lock, so never after ``finish()``).
    func cancel(_ close: (LibDBus.Connection) -> Void) {
        state.withLock { state in
            if case .open(let connection) = state { close(connection) }
            if case .done = state { return }
            state = .cancelled
        }
    }
}
#endif
