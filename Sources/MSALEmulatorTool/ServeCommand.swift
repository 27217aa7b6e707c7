import ArgumentParser
import Foundation
import MSALEmulator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `msal-emulator serve` (the default subcommand): serves the local Microsoft identity platform emulator until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a local emulator of the Microsoft identity platform (v2.0) and Microsoft Graph /me.",
        discussion: """
        Listens on 127.0.0.1 only, over HTTPS (certificate issued by a CA generated at start; trust the file in \
        `ca_certificate`) and plain HTTP. Without --config it serves a ready demo tenant, user and app.
        """
    )

    @Option(name: .long, help: "HTTPS port (0 picks a free port).")
    var port: Int = 0

    @Option(name: .customLong("http-port"), help: "Plain-HTTP port (0 picks a free port).")
    var httpPort: Int = 0

    @Option(name: .long, help: "JSON configuration file (tenants, users, apps, APIs, lifetimes, faults).")
    var config: String?

    @Option(name: .customLong("ca-dir"), help: "Directory to write the CA certificate to.")
    var caDirectory: String?

    @Option(name: .customLong("auto-approve"), help: "Emulator-only: approve every sign-in for this username without a page.")
    var autoApprove: String?

    @Flag(name: .long, help: "Print one JSON object describing the running emulator as the first line.")
    var json = false

    @Flag(name: .long, help: ArgumentHelp(
        "Also play the Microsoft identity broker on the session bus (DBUS_SESSION_BUS_ADDRESS).",
        discussion: "Owns com.microsoft.identity.broker1 and answers broker clients (MSAL with MSALBrokerOptions, MSAL for Python with enable_broker_on_linux) from the emulator. Sign-ins are approved by --auto-approve's user, else asked for on this terminal."))
    var broker = false

    func validate() throws {
        guard (0...65535).contains(port), (0...65535).contains(httpPort) else {
            throw ValidationError("Ports must be between 0 and 65535.")
        }
    }

    func run() async throws {
        var configuration = EmulatorConfiguration.default
        if let config {
            configuration = try EmulatorConfiguration.load(contentsOf: URL(fileURLWithPath: config))
        }
        if port != 0 { configuration.httpsPort = port }
        if httpPort != 0 { configuration.httpPort = httpPort }
        if let autoApprove { configuration.autoApproveUsername = autoApprove }
        // SIGINT and SIGTERM are caught from before the summary is printed: a supervisor that stops the emulator as soon
        // as it reads that line still gets a clean stop (listeners closed, temporary files removed).
        let termination = Self.TerminationSignals()
        let emulator = try await IdentityEmulator.start(configuration, caDirectory: caDirectory.map { URL(fileURLWithPath: $0) })
        var brokerService: EmulatedIdentityBroker?
        if broker {
            do {
                brokerService = try Self.startBroker(emulator, autoApprove: configuration.autoApproveUsername)
            } catch {
                await emulator.stop()
                throw error
            }
        }
        let approves = configuration.autoApproveUsername.map { "\n  Approves:  every sign-in as \($0), with no page" } ?? ""
        let text: String
        if json {
            text = Self.summary(emulator.summaryJSON, brokerBus: brokerService?.busAddress)
        } else {
            text = """
            Identity platform emulator running
              HTTPS:     \(emulator.httpsURL.absoluteString)
              HTTP:      \(emulator.httpURL.absoluteString)
              Authority: \(emulator.authorityURL.absoluteString)
              CA:        \(emulator.caCertificateURL.path)
              Client id: \(emulator.clientId)
              User:      \(emulator.username) / \(emulator.password)\(approves)
              Managed identity (App Service): \(emulator.identityEndpointURL.absoluteString) (header in --json)
              Managed identity (IMDS host):   \(emulator.imdsURL.absoluteString)
            \(brokerService.map { "  Broker:    \(EmulatedIdentityBroker.busName) on \($0.busAddress)\n" } ?? "")Press Ctrl-C to stop.
            """
        }
        // Unbuffered, so that a parent process reading the first line sees it at once.
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
        await termination.wait()
        brokerService?.stop()
        await emulator.stop()
    }

    /// The summary JSON with the broker's bus address (`broker_bus_address`) when it runs.
    static func summary(_ json: String, brokerBus: String?) -> String {
        guard let brokerBus, var object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        else { return json }
        object["broker_bus_address"] = brokerBus
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return json }
        return String(decoding: data, as: UTF8.self)
    }

    /// SIGINT and SIGTERM, caught from when this is made (their default action, ending the process, is turned off).
    /// Unchecked: its stored properties never change, and dispatch sources are safe to share.
    final class TerminationSignals: @unchecked Sendable {
        private let stream: AsyncStream<Void>
        private let sources: [any DispatchSourceSignal]

        init() {
            signal(SIGINT, SIG_IGN)
            signal(SIGTERM, SIG_IGN)
            let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            self.stream = stream
            sources = [SIGINT, SIGTERM].map { number in
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { continuation.yield() }
                source.resume()
                return source
            }
        }

        /// Suspends until one of the signals has arrived (at once if one already did).
        func wait() async {
            for await _ in stream { break }
            for source in sources { source.cancel() }
        }
    }
}
