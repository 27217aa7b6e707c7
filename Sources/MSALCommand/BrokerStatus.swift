import Foundation
import MSAL
import MSALCommandSupport

/// What `msal status` says of the device's identity broker: whether one answers on the session bus, its version,
/// and the accounts it holds for the client. Local D-Bus calls only, each bounded.
struct BrokerStatus {
    var inUse: Bool
    var present: Bool
    var version: String?
    var accounts: [String]
    /// Why no broker answered.
    var reason: String?

    static func probe(clientId: String, inUse: Bool) async -> BrokerStatus {
        #if os(Linux)
        guard var transport = MSALDBusBrokerTransport(environment: ProcessConfiguration.environment) else {
            return BrokerStatus(inUse: inUse, present: false, accounts: [], reason: "no D-Bus session bus")
        }
        transport.pingTimeout = 2
        transport.silentTimeout = 5
        let correlationId = UUID()
        do {
            try await transport.ping()
            let version = try? BrokerAnswer.version(
                await transport.call(.getLinuxBrokerVersion, correlationId: correlationId,
                                     request: BrokerRequest.version(clientVersion: MSALPublicClientApplication.sdkVersion ?? "").body,
                                     interactive: false), correlationId: correlationId)
            let request = BrokerRequest.accounts(clientId: clientId, redirectUri: clientId)
            let accounts = (try? BrokerAnswer.accounts(
                await transport.call(.getAccounts, correlationId: correlationId, request: request.body, interactive: false),
                correlationId: correlationId)) ?? []
            return BrokerStatus(inUse: inUse, present: true, version: version, accounts: accounts.map(\.username))
        } catch {
            return BrokerStatus(inUse: inUse, present: false, accounts: [],
                                reason: "no identity broker answers on the session bus")
        }
        #else
        return BrokerStatus(inUse: inUse, present: false, accounts: [], reason: "not on Linux")
        #endif
    }

    /// Why no identity broker answers (nil when one does): one bounded ping on the session bus.
    static func unavailability() async -> String? {
        #if os(Linux)
        guard var transport = MSALDBusBrokerTransport(environment: ProcessConfiguration.environment) else {
            return "no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set"
        }
        transport.pingTimeout = 2
        do {
            try await transport.ping()
            return nil
        } catch {
            return "nothing answers on the session bus"
        }
        #else
        return "the tool uses an identity broker on Linux only"
        #endif
    }

    var json: [String: Any] {
        var object: [String: Any] = ["in_use": inUse, "present": present, "accounts": accounts]
        object["version"] = version ?? NSNull()
        if let reason { object["reason"] = reason }
        return object
    }

    var line: String {
        let use = inUse ? "in use" : "not in use (msal login --broker)"
        guard present else { return "Broker: none (\(reason ?? "not found")); \(use)" }
        let held = accounts.isEmpty ? "no account" : accounts.map { TerminalText.inline($0) }.joined(separator: ", ")
        return "Broker: Microsoft identity broker \(TerminalText.inline(version ?? "?")), holds \(held); \(use)"
    }
}
