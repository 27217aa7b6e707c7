import ServiceLifecycle
public import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import MSALSupport
import NIOCore
import NIOPosix


/// A local emulator of the Microsoft identity platform (v2.0 endpoints) and of Microsoft Graph `/me`.
///
/// ```swift
/// let emulator = try await IdentityEmulator.start()          // ready default configuration
/// let authority = emulator.authorityURL                       // https://127.0.0.1:<port>/contoso.onmicrosoft.com
/// // ... trust emulator.caCertificateURL, sign in as emulator.username / emulator.password ...
/// await emulator.stop()
/// ```
///
/// Both listeners (HTTP and HTTPS) bind to 127.0.0.1 only. The HTTPS certificate is issued at start by a
/// throw-away certificate authority whose PEM is written to ``caCertificateURL``.
public final class IdentityEmulator: Sendable {
    /// Base URL of the plain-HTTP listener, e.g. `http://127.0.0.1:50001`.
    public let httpURL: URL
    /// Base URL of the HTTPS listener, e.g. `https://127.0.0.1:50002`.
    public let httpsURL: URL
    /// File holding the PEM of the certificate authority that issued the HTTPS certificate.
    public let caCertificateURL: URL
    /// PEM of the certificate authority.
    public let caCertificatePEM: String
    /// The configuration the emulator started with.
    public let configuration: EmulatorConfiguration
    /// The emulated clock; move it forward to expire codes and tokens.
    public let clock: EmulatorClock
    /// The secret App Service clients send in `X-IDENTITY-HEADER` (their `IDENTITY_HEADER`): the configuration's
    /// ``EmulatorConfiguration/identityHeader``, or a random value made at start.
    public let identityHeader: String
    /// Where the Azure Arc endpoint writes its challenge key files.
    public let arcTokenDirectory: URL

    let core: EmulatorCore
    private let keys: SigningKeys
    private let faults: FaultTable
    private let tasks: LockedBox<[Task<Void, any Error>]>
    /// The Arc directory when the emulator made it (removed at stop).
    private let ownedArcDirectory: URL?
    /// The temporary directory of the CA certificate when the emulator made it (removed by ``stop()``).
    private let ownedCADirectory: URL?

    /// Default tenant (domain) of the configuration.
    public var tenant: String { configuration.defaults.tenant }
    /// Default public-client id.
    public var clientId: String { configuration.defaults.clientId }
    /// Default user's sign-in name.
    public var username: String { configuration.defaults.username }
    /// Default user's password.
    public var password: String { configuration.defaultPassword }
    /// Scopes the default app asks for.
    public var scopes: [String] { configuration.defaults.scopes }
    /// HTTPS authority for the default tenant, e.g. `https://127.0.0.1:50002/contoso.onmicrosoft.com`.
    public var authorityURL: URL { httpsURL.appendingPathComponent(tenant) }
    /// Base URL of the Graph stand-in (`/v1.0/me` lives under it).
    public var graphURL: URL { httpsURL.appendingPathComponent("v1.0") }
    /// App Service's managed identity endpoint (`IDENTITY_ENDPOINT`), over plain HTTP as in Azure.
    public var identityEndpointURL: URL { httpURL.appendingPathComponent("msi/token") }
    /// The IMDS base URL (`AZURE_POD_IDENTITY_AUTHORITY_HOST`); the token endpoint is
    /// `/metadata/identity/oauth2/token` under it.
    public var imdsURL: URL { httpURL }
    /// Azure Arc's token endpoint (`IDENTITY_ENDPOINT` on an Arc-enabled server).
    public var arcEndpointURL: URL { httpURL.appendingPathComponent("arc/metadata/identity/oauth2/token") }
    /// Azure Arc's `IMDS_ENDPOINT` (which, with `IDENTITY_ENDPOINT`, tells clients they are on Arc).
    public var arcIMDSURL: URL { httpURL.appendingPathComponent("arc") }
    /// The emulator's own OpenID Connect issuer for workload identity tokens (`{http}/federated-issuer`).
    public var federatedIssuerURL: URL { httpURL.appendingPathComponent(EmulatorCore.federatedIssuerSegment) }

    /// Microsoft Authenticator's answer URL to a broker request URL (`msauthv2://broker?…`), as the emulated
    /// Authenticator signs the user in (the auto-approve user, or `approve`'s); nil for a request it cannot answer.
    public func authenticatorAnswer(to request: URL, approve: EmulatedBrokerApprover? = nil) async -> URL? {
        await core.authenticatorAnswer(request, issuerBase: httpsURL.absoluteString, approve: approve)
    }

    /// The emulated Enterprise SSO extension's answer (the header fields of its `authenticatedResponse`) to
    /// `operation` with `items` (`authorizationOptions`); sign-ins approved by the auto-approve user, or `approve`.
    ///
    /// - Throws: `EmulatedSSOExtensionError`, the error the extension reports (a domain and a code).
    public func ssoExtensionAnswer(_ operation: String, items: [String: String],
                                   approve: EmulatedBrokerApprover? = nil) async throws -> [String: String] {
        try await core.ssoExtensionAnswer(operation, items: items, issuerBase: httpsURL.absoluteString, approve: approve)
    }

    /// Puts the emulated device in shared device mode (or back in personal mode), as the SSO extension reports it.
    public func setSharedDeviceMode(_ shared: Bool) async {
        await core.setSharedDeviceMode(shared)
    }

    /// Registers the emulated device (the emulated broker's) in this emulator's tenant, as the user `userPrincipalName`:
    /// its certificate and key sign device-token requests (`getDeviceToken`), and the emulated SSO extension reports
    /// the registration.
    public func registerDevice(userPrincipalName: String? = nil) async throws -> EmulatedDeviceRegistration {
        try await core.registerDevice(tenant: tenant, userPrincipalName: userPrincipalName ?? username)
    }

    /// Sets what the emulated SSO extension reports about the device's policies: the administrator's preferred
    /// sign-in method (QR code and PIN) and, for a Mac, the Platform SSO status (`platformSSOEnabledAndRegistered`
    /// and the other values of `platform_sso_status`).
    public func setDevicePolicies(preferredAuthQRPIN: Bool, platformSSOStatus: String? = nil) async {
        await core.setDevicePolicies(preferredAuthQRPIN: preferredAuthQRPIN, platformSSOStatus: platformSSOStatus)
    }

    /// The environment of an App Service app whose managed identity is served by this emulator.
    public var appServiceEnvironment: [String: String] {
        ["IDENTITY_ENDPOINT": identityEndpointURL.absoluteString, "IDENTITY_HEADER": identityHeader]
    }
    /// The environment that sends IMDS requests to this emulator.
    public var imdsEnvironment: [String: String] { ["AZURE_POD_IDENTITY_AUTHORITY_HOST": imdsURL.absoluteString] }
    /// The environment of an Azure Arc-enabled server whose agent is this emulator.
    public var arcEnvironment: [String: String] {
        ["IDENTITY_ENDPOINT": arcEndpointURL.absoluteString, "IMDS_ENDPOINT": arcIMDSURL.absoluteString]
    }

    private init(
        httpURL: URL, httpsURL: URL, caCertificateURL: URL, caCertificatePEM: String, configuration: EmulatorConfiguration,
        clock: EmulatorClock, core: EmulatorCore, keys: SigningKeys, faults: FaultTable, tasks: [Task<Void, any Error>],
        arcTokenDirectory: URL, ownedArcDirectory: URL?, ownedCADirectory: URL?
    ) {
        self.httpURL = httpURL
        self.httpsURL = httpsURL
        self.caCertificateURL = caCertificateURL
        self.caCertificatePEM = caCertificatePEM
        self.configuration = configuration
        self.clock = clock
        self.core = core
        self.keys = keys
        self.faults = faults
        self.tasks = LockedBox(tasks)
        identityHeader = configuration.identityHeader ?? ""
        self.arcTokenDirectory = arcTokenDirectory
        self.ownedArcDirectory = ownedArcDirectory
        self.ownedCADirectory = ownedCADirectory
    }

    /// Starts the emulator on 127.0.0.1.
    ///
    /// - Parameters:
    ///   - configuration: What to emulate; the ready default when omitted.
    ///   - caDirectory: Where to write `msal-emulator-ca.pem`; when omitted, a new temporary directory that
    ///     ``stop()`` removes.
    ///   - logger: Logger for server events; by default only critical events are logged.
    /// - Returns: The running emulator.
    public static func start(
        _ configuration: EmulatorConfiguration = .default, caDirectory: URL? = nil,
        logger: Logger? = nil
    ) async throws -> IdentityEmulator {
        var configuration = configuration
        let logger = logger ?? {
            var quiet = Logger(label: "msal.emulator")
            quiet.logLevel = .critical
            return quiet
        }()
        // An auto-approve user the directory does not have would leave every sign-in waiting for a page nobody sees.
        if let auto = configuration.autoApproveUsername, configuration.user(named: auto) == nil {
            let known = configuration.users.prefix(8).map(\.username).joined(separator: ", ")
            throw EmulatorStartError(message: "The auto-approve user '\(auto.prefix(256))' is not in the emulator's directory; "
                                        + "its users: \(known.isEmpty ? "none" : known).")
        }
        for app in configuration.applications {
            for (index, pem) in app.certificates.enumerated() {
                do { _ = try ClientCertificate(pem: pem) } catch {
                    throw EmulatorStartError(message: "Certificate \(index + 1) of application '\(app.clientId)': \(error.description)")
                }
            }
        }
        let certificates = try LoopbackCertificates()
        let directory = caDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("msal-emulator-\(UUID().uuidString)")
        let caURL = directory.appendingPathComponent("msal-emulator-ca.pem")
        do {
            // A new directory is private (0700); the certificate replaces whatever is at its name, never through a link.
            try PrivateFiles.replace(caURL.path, with: Data(certificates.caPEM.utf8), mode: 0o644)
        } catch let error as PrivateFiles.Failure {
            throw EmulatorStartError(message: "The CA certificate could not be written: \(error.description)")
        }

        if configuration.identityHeader?.isEmpty ?? true { configuration.identityHeader = Base64URL.random(bytes: 24) }
        let arcDirectory = configuration.arcTokenDirectory.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("msal-emulator-arc-\(UUID().uuidString)", isDirectory: true)
        let ownsArcDirectory = configuration.arcTokenDirectory == nil
        do {
            try PrivateFiles.makeDirectory(arcDirectory.path)
        } catch let error as PrivateFiles.Failure {
            throw EmulatorStartError(message: "The Azure Arc key directory could not be made: \(error.description)")
        }
        configuration.arcTokenDirectory = arcDirectory.path

        let clock = EmulatorClock()
        let keys = try SigningKeys()
        let faults = FaultTable(configuration.faults)
        let core = EmulatorCore(
            config: configuration, keys: keys, clock: clock, faults: faults, federatedKeys: try SigningKeys(),
            identityHeader: configuration.identityHeader ?? "", arcTokenDirectory: arcDirectory
        )

        var tasks: [Task<Void, any Error>] = []
        do {
            let (httpsPort, httpsTask) = try await listen(
                EmulatorResponder(core: core, faults: faults, scheme: "https"), port: configuration.httpsPort,
                server: try .tls(.http1(), tlsConfiguration: certificates.serverTLSConfiguration()), logger: logger
            )
            tasks.append(httpsTask)
            let (httpPort, httpTask) = try await listen(
                EmulatorResponder(core: core, faults: faults, scheme: "http"), port: configuration.httpPort, server: .http1(), logger: logger
            )
            tasks.append(httpTask)
            await core.setListenerPorts([httpPort, httpsPort], securePort: httpsPort)
            return IdentityEmulator(
                httpURL: URL(string: "http://127.0.0.1:\(httpPort)")!, httpsURL: URL(string: "https://127.0.0.1:\(httpsPort)")!,
                caCertificateURL: caURL, caCertificatePEM: certificates.caPEM, configuration: configuration, clock: clock,
                core: core, keys: keys, faults: faults, tasks: tasks,
                arcTokenDirectory: arcDirectory, ownedArcDirectory: ownsArcDirectory ? arcDirectory : nil,
                ownedCADirectory: caDirectory == nil ? directory : nil
            )
        } catch {
            for task in tasks { task.cancel() }
            for task in tasks { _ = await task.result }
            if ownsArcDirectory { try? FileManager.default.removeItem(at: arcDirectory) }
            if caDirectory == nil { try? FileManager.default.removeItem(at: directory) }
            throw error
        }
    }

    /// Runs one listener until its task is cancelled; returns its port once it is accepting connections.
    private static func listen(
        _ responder: EmulatorResponder, port: Int, server: HTTPServerBuilder, logger: Logger
    ) async throws -> (Int, Task<Void, any Error>) {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        // The server is run directly rather than through `Application`, which stamps every response with the
        // machine's `Date`: the emulator's `Date` comes from its own clock (see EmulatorClock), as Entra's shows Entra's.
        let service = try server.buildServer(
            configuration: ServerConfiguration(address: .hostname("127.0.0.1", port: port), serverName: nil),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger,
            responder: { request, writer, channel in
                let context = EmulatorRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
                let response = try await responder.respond(to: request, context: context)
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }
        )
        let task = Task {
            defer { continuation.finish() }
            try await service.run()
        }
        for await boundPort in stream {
            return (boundPort, task)
        }
        do {
            try await task.value
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw EmulatorStartError(message: "Port \(port) on 127.0.0.1 is already in use: choose another port "
                                     + "(--port, --http-port), or 0 for a free one.")
        } catch let error as IOError {
            throw EmulatorStartError(message: "The listener on 127.0.0.1 port \(port) could not start: "
                                     + String(cString: strerror(error.errnoCode)) + ".")
        }
        throw EmulatorStartError(message: "The listener on port \(port) stopped before accepting connections.")
    }

    /// Stops both listeners and waits until they have shut down.
    public func stop() async {
        let running = tasks.withLock { tasks in
            defer { tasks.removeAll() }
            return tasks
        }
        for task in running { task.cancel() }
        for task in running { _ = await task.result }
        await core.removeArcKeys()
        if let ownedArcDirectory { try? FileManager.default.removeItem(at: ownedArcDirectory) }
        if let ownedCADirectory { try? FileManager.default.removeItem(at: ownedCADirectory) }
    }

    /// Makes a new signing key active; with `retireOld`, tokens signed by earlier keys stop verifying.
    public func rotateSigningKeys(retireOld: Bool = false) throws {
        try keys.rotate(retireOld: retireOld)
    }

    /// Adds a fault rule at run time.
    public func injectFault(_ rule: FaultRule) {
        faults.add(rule)
    }

    /// Removes every fault rule.
    public func clearFaults() {
        faults.removeAll()
    }

    /// Revokes every refresh token issued so far (as a password reset or an admin would).
    public func revokeAllRefreshTokens() async {
        await core.revokeRefreshTokens(userId: nil)
    }

    /// Changes the directory at run time, for example to add a user or an app registration.
    public func updateConfiguration(_ change: @escaping @Sendable (inout EmulatorConfiguration) -> Void) async {
        await core.setConfiguration(change)
    }

    /// Registers a PEM X.509 certificate as a client credential of an app (as
    /// `POST /_emulator/applications/{clientId}/certificates` does): client assertions signed with its private key
    /// then authenticate the app. Returns the certificate's thumbprints, or nil when no app has that client id.
    public func registerCertificate(_ pem: String, clientId: String) async throws -> CertificateThumbprints? {
        try await core.registerCertificate(pem, clientId: clientId)
    }

    /// Mints a token of the emulator's federated issuer (as `POST /_emulator/federated-tokens` does), for workload
    /// identity: `iss` = ``federatedIssuerURL``, `sub` = `subject`, `aud` = `audience`, valid for `lifetime` seconds
    /// (at most a day). An app whose federated credential trusts that issuer and subject accepts it as its client
    /// assertion.
    public func federatedToken(
        subject: String, audience: String = EmulatorConfiguration.federatedTokenAudience, lifetime: Int = 3600
    ) async throws -> String {
        try await core.mintFederatedToken(subject: subject, audience: audience, lifetime: lifetime, baseURL: httpURL.absoluteString).token
    }

    /// The start-up summary printed by `msal emulator --json`: base URLs, CA path and the default tenant, app and user
    /// (and the ids of the demo daemon and middle-tier API when the configuration has them), and what managed
    /// identity and workload identity clients need: `identity_endpoint` and `identity_header` (App Service),
    /// `imds_endpoint` (IMDS base), `arc_endpoint`, `arc_imds_endpoint` and `arc_token_directory` (Azure Arc),
    /// `federated_issuer` and `federated_tokens` (the control endpoint minting its tokens).
    public var summary: [String: any Sendable] {
        var summary: [String: any Sendable] = [
            "http": httpURL.absoluteString, "https": httpsURL.absoluteString, "ca_certificate": caCertificateURL.path,
            "tenant": tenant, "tenant_id": configuration.tenants.first { $0.domains.contains(tenant) }?.id ?? tenant,
            "authority": authorityURL.absoluteString, "client_id": clientId, "username": username, "password": password,
            "scopes": scopes, "graph": graphURL.absoluteString,
            "b2c_authority": httpsURL.absoluteString + "/tfp/fabrikamb2c.onmicrosoft.com/B2C_1_signupsignin",
        ]
        let ids = Set(configuration.applications.map(\.clientId))
        if ids.contains(EmulatorConfiguration.daemonClientId) { summary["daemon_client_id"] = EmulatorConfiguration.daemonClientId }
        if ids.contains(EmulatorConfiguration.middleTierClientId) { summary["middle_tier_client_id"] = EmulatorConfiguration.middleTierClientId }
        summary["identity_endpoint"] = identityEndpointURL.absoluteString
        summary["identity_header"] = identityHeader
        summary["imds_endpoint"] = imdsURL.absoluteString
        summary["arc_endpoint"] = arcEndpointURL.absoluteString
        summary["arc_imds_endpoint"] = arcIMDSURL.absoluteString
        summary["arc_token_directory"] = arcTokenDirectory.path
        summary["federated_issuer"] = federatedIssuerURL.absoluteString
        summary["federated_tokens"] = httpURL.absoluteString + "/_emulator/federated-tokens"
        if let system = configuration.managedIdentities.first(where: \.systemAssigned) { summary["system_assigned_identity_client_id"] = system.clientId }
        let userAssigned = configuration.managedIdentities.filter { !$0.systemAssigned }.map(\.clientId)
        if !userAssigned.isEmpty { summary["user_assigned_identity_client_ids"] = userAssigned }
        return summary
    }

    /// ``summary`` as one line of JSON.
    public var summaryJSON: String {
        let data = (try? JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
