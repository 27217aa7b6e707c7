import Hummingbird
public import MSAL
import Logging

/// Runs ``WebApp`` on 127.0.0.1 until the task is cancelled; `ready` gets its base URL (`http://localhost:<port>`)
/// once it accepts connections.
public enum WebAppServer {
    public static func run(app: MSALConfidentialClientApplication, graphEndpoint: String, port: Int,
                           ready: @escaping @Sendable (String) async -> Void) async throws {
        let web = WebApp(app: app, graphEndpoint: graphEndpoint)
        var logger = Logger(label: "web-app")
        logger.logLevel = .error
        let server = Application(router: web.router(), configuration: .init(address: .hostname("127.0.0.1", port: port)),
                                 onServerRunning: { channel in
                                     web.base.value = "http://localhost:\(channel.localAddress?.port ?? port)"
                                     await ready(web.base.value)
                                 }, logger: logger)
        try await server.runService()
    }
}
