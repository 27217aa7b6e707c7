#if os(Linux)
import Foundation
import MSALSupport
import MSALTestSupport
import Testing
@testable import MSALCore
@testable import MSALLinuxBroker
import MSALDBus

/// A stand-in broker owning the broker's name on a private bus, answering each call with `answer` (or not at all
/// when it returns nil), on a thread of its own.
final class StandInBroker: @unchecked Sendable {
    let received = LockedBox<[(member: String, arguments: [String])]>([])
    private let running = LockedBox(true)
    private let thread: Thread

    init(address: String, answer: @escaping @Sendable (String, [String]) -> String?) throws {
        let dbus = try LibDBus.shared.get()
        let connection = try dbus.connect(address: address)
        guard try dbus.own(connection, name: MSALDBusBrokerTransport.busName) else {
            throw LibDBus.Failure(name: "test", message: "the broker's name is taken")
        }
        let received = self.received
        let running = self.running
        // The connection is used by the serving thread only, once this initializer returns.
        struct Owned: @unchecked Sendable { let connection: LibDBus.Connection }
        let owned = Owned(connection: connection)
        thread = Thread {
            while running.get(), dbus.next(owned.connection, timeout: 20, { call in
                received.withLock { $0.append((call.member, call.arguments)) }
                if let text = answer(call.member, call.arguments) { dbus.reply(owned.connection, to: call, [text]) }
            }) {}
            dbus.close(owned.connection)
        }
        thread.start()
    }

    func stop() { running.set(false) }
}

@Suite("The broker over D-Bus (libdbus, a private bus)", .serialized,
       .enabled(if: PrivateBus.available || PrivateBus.required))
struct DBusBrokerTransportTests {
    static let accounts = #"{"accounts":[{"homeAccountId":"uid.utid","username":"adele@contoso.onmicrosoft.com"}]}"#

    @Test func aCallCarriesTheThreeStringsAndReturnsTheAnswer() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let broker = try StandInBroker(address: bus.address) { member, _ in member == "getAccounts" ? Self.accounts : nil }
        defer { broker.stop() }
        let transport = MSALDBusBrokerTransport(address: bus.address)
        try await transport.ping()
        let correlationId = UUID()
        let request = BrokerRequest.accounts(clientId: "c", redirectUri: "r")
        let answer = try await transport.call(.getAccounts, correlationId: correlationId, request: request.body, interactive: false)
        #expect(try BrokerAnswer.accounts(answer, correlationId: nil).map(\.username) == ["adele@contoso.onmicrosoft.com"])
        let call = try #require(broker.received.get().first { $0.member == "getAccounts" })
        #expect(call.arguments == ["0.0", correlationId.uuidString.lowercased(), String(decoding: request.body, as: UTF8.self)])
    }

    /// A reply larger than 1 MiB is refused before it is copied (libdbus takes up to 128 MiB), as no broker; a reply
    /// just under the bound is read.
    @Test func anOversizedAnswerIsRefusedUnread() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let huge = String(repeating: "x", count: LibDBus.maximumReplyString + 1)
        let fits = String(repeating: "y", count: LibDBus.maximumReplyString)
        let broker = try StandInBroker(address: bus.address) { member, _ in member == "getAccounts" ? huge : fits }
        defer { broker.stop() }
        let transport = MSALDBusBrokerTransport(address: bus.address)
        await #expect {
            try await transport.call(.getAccounts, correlationId: UUID(), request: Data("{}".utf8), interactive: false)
        } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.internalCode == .internalBrokerNotAvailable && info?.errorDescription.contains("larger than 1 MiB") == true
        }
        let read = try await transport.call(.getLinuxBrokerVersion, correlationId: UUID(), request: Data("{}".utf8), interactive: false)
        #expect(read.count == LibDBus.maximumReplyString)
    }

    /// Calls go to the unique name of the process that owns the broker's name, once its user is checked to be this
    /// process's (the stand-in runs in this process).
    @Test func callsGoToTheCheckedOwner() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let broker = try StandInBroker(address: bus.address) { member, _ in member == "getAccounts" ? Self.accounts : nil }
        defer { broker.stop() }
        let dbus = try LibDBus.shared.get()
        let connection = try dbus.connect(address: bus.address)
        defer { dbus.close(connection) }
        let owner = try MSALDBusBrokerTransport.owner(dbus, connection, timeout: 5000)
        #expect(owner.hasPrefix(":"))
        let uid = try dbus.callForUInt32(connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                         interface: "org.freedesktop.DBus", method: "GetConnectionUnixUser",
                                         arguments: [owner], timeout: 5000)
        #expect(uid == getuid())
    }

    @Test func noBrokerOnTheBusAndNoBusAreNoBroker() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        await #expect { try await MSALDBusBrokerTransport(address: bus.address).ping() } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.internalCode == .internalBrokerNotAvailable && info?.errorDescription.contains("no broker") == true
        }
        let nowhere = MSALDBusBrokerTransport(address: "unix:path=\(bus.directory.path)/no-such-bus")
        await #expect { try await nowhere.ping() } throws: { ($0 as? MSALErrorInfo)?.internalCode == .internalBrokerNotAvailable }
    }

    @Test func aBrokerThatNeverAnswersAndOneThatDiesAreNoBroker() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let silent = try StandInBroker(address: bus.address) { _, _ in nil }
        var transport = MSALDBusBrokerTransport(address: bus.address)
        transport.silentTimeout = 1
        await #expect {
            try await transport.call(.acquireTokenSilently, correlationId: UUID(), request: Data("{}".utf8), interactive: false)
        } throws: { error in
            let info = error as? MSALErrorInfo
            return info?.internalCode == .internalBrokerNotAvailable && info?.errorDescription.contains("within 1 s") == true
        }
        // The broker goes away while an interactive call waits: the call ends at once.
        let waiting = Task {
            try await transport.call(.acquireTokenInteractively, correlationId: UUID(), request: Data("{}".utf8), interactive: true)
        }
        try await eventually(within: 10, "the interactive call reaching the broker") {
            silent.received.get().contains { $0.member == "acquireTokenInteractively" }
        }
        silent.stop()
        await #expect { try await value(of: waiting, within: 10) } throws: {
            ($0 as? MSALErrorInfo)?.internalCode == .internalBrokerNotAvailable
        }
    }

    @Test func cancellingAnInteractiveCallEndsIt() async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        let broker = try StandInBroker(address: bus.address) { _, _ in nil }
        defer { broker.stop() }
        let transport = MSALDBusBrokerTransport(address: bus.address)
        let waiting = Task {
            try await transport.call(.acquireTokenInteractively, correlationId: UUID(), request: Data("{}".utf8), interactive: true)
        }
        try await eventually(within: 10, "the interactive call reaching the broker") {
            broker.received.get().contains { $0.member == "acquireTokenInteractively" }
        }
        waiting.cancel()
        await #expect { try await value(of: waiting, within: 10) } throws: { ($0 as? MSALErrorInfo)?.code == .userCanceled }
    }
}
#endif
