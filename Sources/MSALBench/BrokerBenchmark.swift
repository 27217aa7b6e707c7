import ArgumentParser
import Foundation
import MSAL
import MSALEmulator
import MSALTesting

/// `msal-bench broker`: silent tokens through the identity broker (the D-Bus round trip included) against cache hits,
/// on a private `dbus-daemon` with the emulator's broker.
struct BrokerBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broker",
        abstract: "Times silent tokens through the identity broker (D-Bus round trip included) against cache hits.",
        discussion: """
            Starts a private dbus-daemon, the emulator and its broker on that bus, signs in through the broker, then \
            times K silent calls that go to the broker (forceRefresh: each one is a D-Bus call, a token issued and \
            stored), K bare D-Bus calls (getLinuxBrokerVersion) and K cache hits. Needs dbus-daemon. Prints one JSON \
            object with --json.

            Example: swift run --traits Tools -c release msal-bench broker --iterations 500
            """)

    @Option(help: "Calls to time of each kind.") var iterations = 300
    @Flag(help: "Print one JSON object.") var json = false

    func run() async throws {
        #if os(Linux)
        let bus = try BenchBus.start()
        defer { bus.stop() }
        var configuration = EmulatorConfiguration.default
        configuration.autoApproveUsername = configuration.defaults.username
        let emulator = try await IdentityEmulator.start(configuration)
        let broker = try EmulatedIdentityBroker.start(for: emulator, busAddress: bus.address)
        defer { broker.stop() }
        let transport = MSALDBusBrokerTransport(address: bus.address)
        let config = MSALPublicClientApplicationConfig(
            clientId: emulator.clientId, redirectUri: "http://localhost",
            authority: try MSALAuthority(url: URL(string: "\(emulator.httpURL.absoluteString)/\(emulator.tenant)")!))
        config.httpClient = MSALDefaultHTTPClient.shared
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        config.brokerOptions = MSALBrokerOptions(transport: transport)
        let app = try MSALPublicClientApplication(configuration: config)
        let webview = MSALWebviewParameters()
        webview.webAuthenticator = EmulatorAutoApproveAuthenticator()
        let signedIn = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview))
        guard signedIn.metadata.tokenSource == .broker else { throw ValidationError("The sign-in did not go through the broker.") }

        let forced = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        forced.forceRefresh = true
        let hit = MSALSilentTokenParameters(scopes: ["User.Read"], account: signedIn.account)
        _ = try await app.acquireTokenSilent(with: forced)   // warm: metadata, signing keys

        let throughBroker = try await Self.time(iterations) {
            let result = try await app.acquireTokenSilent(with: forced)
            guard result.metadata.tokenSource == .broker else { throw ValidationError("A forced refresh missed the broker.") }
        }
        let version = try BrokerBenchRequest.version()
        let roundTrip = try await Self.time(iterations) {
            _ = try await transport.call(.getLinuxBrokerVersion, correlationId: UUID(), request: version, interactive: false)
        }
        let cacheHit = try await Self.time(iterations) {
            let result = try await app.acquireTokenSilent(with: hit)
            guard result.metadata.tokenSource == .cache else { throw ValidationError("A silent call missed the cache.") }
        }
        await emulator.stop()
        let figures: [String: Any] = [
            "iterations": iterations,
            "silent_through_broker_p50_ms": throughBroker.p50, "silent_through_broker_p90_ms": throughBroker.p90,
            "dbus_round_trip_p50_ms": roundTrip.p50, "dbus_round_trip_p90_ms": roundTrip.p90,
            "cache_hit_p50_ms": cacheHit.p50, "cache_hit_p90_ms": cacheHit.p90,
        ]
        if json {
            let data = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(String(format: "silent through the broker: p50 %.3f ms, p90 %.3f ms", throughBroker.p50, throughBroker.p90))
            print(String(format: "bare D-Bus call:           p50 %.3f ms, p90 %.3f ms", roundTrip.p50, roundTrip.p90))
            print(String(format: "cache hit:                 p50 %.3f ms, p90 %.3f ms", cacheHit.p50, cacheHit.p90))
        }
        #else
        throw ValidationError("The broker benchmark needs Linux (D-Bus).")
        #endif
    }

    /// Times `count` runs of `body`: the median and the 90th percentile, in milliseconds.
    static func time(_ count: Int, _ body: () async throws -> Void) async throws -> (p50: Double, p90: Double) {
        var samples: [UInt64] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            let start = DispatchTime.now().uptimeNanoseconds
            try await body()
            samples.append(DispatchTime.now().uptimeNanoseconds - start)
        }
        samples.sort()
        func at(_ p: Double) -> Double { Double(samples[min(samples.count - 1, Int(Double(samples.count) * p))]) / 1e6 }
        return (at(0.5), at(0.9))
    }
}

/// The version request Microsoft's client sends.
enum BrokerBenchRequest {
    static func version() throws -> Data {
        try JSONSerialization.data(withJSONObject: ["msalCppVersion": "12.0.2"])
    }
}

#if os(Linux)
/// A private `dbus-daemon` for the benchmark: a socket in a scratch directory, no service started on demand.
struct BenchBus {
    let process: Process
    let directory: URL
    var address: String { "unix:path=\(directory.path)/bus" }

    static func start() throws -> BenchBus {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-bench-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("services"), withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("session.conf")
        try Data("""
            <busconfig><type>session</type><keep_umask/><listen>unix:path=\(directory.path)/bus</listen>
            <auth>EXTERNAL</auth><servicedir>\(directory.path)/services</servicedir>
            <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/>
            <allow own="*"/></policy></busconfig>
            """.utf8).write(to: config)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--nopidfile"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bus = BenchBus(process: process, directory: directory)
        // Ready once the broker's client can reach it: a ping that is answered "no such name" says the bus is up.
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: directory.path + "/bus") || !bus.accepts() {
            guard Date() < deadline else { bus.stop(); throw ValidationError("dbus-daemon did not start.") }
            usleep(20_000)
        }
        return bus
    }

    func accepts() -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array((directory.path + "/bus").utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }
}
#endif
