/// Whether and how an application signs users in through the device's identity broker — on Linux, the Microsoft
/// identity broker (`com.microsoft.identity.broker1` on the D-Bus session bus), which Intune-managed and
/// Entra-registered Linux desktops run. The broker holds a device-bound session (the primary refresh token): its
/// tokens pass Conditional Access that requires a compliant or registered device, or token protection, which refuses
/// browser and device-code sign-ins (AADSTS53000, AADSTS53003, AADSTS530084); and one sign-in serves every app of the
/// device.
///
/// Off by default on Linux, as in MSAL for Python (`enable_broker_on_linux`) and MSAL.NET (`BrokerOptions`):
///
/// ```swift
/// let config = MSALPublicClientApplicationConfig(clientId: "<client id>")
/// config.brokerOptions = MSALBrokerOptions(enabledOnLinux: true)
/// ```
///
/// With the broker on, interactive sign-ins go to the broker's own window; silent requests answer from the cache
/// first, then ask the broker; ``MSALResultMetadata/tokenSource`` says ``MSALTokenSource/broker`` for a token it
/// gave. When no broker answers (none installed, no session bus, no answer within 5 s), the application logs why and
/// uses its own flows (the browser, the refresh token), as MSAL for Python does. Public client applications with a
/// Microsoft Entra authority only: B2C, ADFS and External ID (CIAM) authorities never use the broker.
public struct MSALBrokerOptions: Sendable {
    /// Whether the Microsoft identity broker is used on Linux. Default false.
    public var enabledOnLinux: Bool
    /// The way to the broker, when not the platform's own (the D-Bus session bus on Linux, with the `MSAL` module).
    /// Setting one turns the broker on, on any platform: for tests against an emulated broker, or a broker reached
    /// another way.
    public var transport: (any MSALBrokerTransport)?
    /// A broker app reached by opening its URL (Microsoft Authenticator on iOS), when not the platform's own:
    /// interactive sign-ins open it, and its answer comes back through
    /// ``MSALPublicClientApplication/handleMSALResponse(_:sourceApplication:)``.
    public var brokerApp: MSALBrokerApp?
    /// Microsoft's Enterprise SSO extension, when not the platform's own: where it is configured, it answers before
    /// any other broker (interactive and silent tokens, the device's accounts, device information, sign-out).
    public var ssoExtension: (any MSALSSOExtensionPerformer)?
    /// The device's registrations (workplace join), when not the platform's own: they give
    /// ``MSALPublicClientApplication/getWPJMetaDataDevice(with:forTenantId:completionBlock:)`` its metadata and sign
    /// ``MSALPublicClientApplication/getDeviceToken(with:completionBlock:)``'s requests.
    public var workplaceJoin: (any MSALWorkplaceJoinStore)?
    /// The app's bundle identifier, which decides whether its redirect URI is broker-capable
    /// (`msauth.<bundle id>://auth`, or `<scheme>://<bundle id>`): the Apple brokers answer only an app with such a
    /// redirect URI. The main bundle's when nil (set it only where there is no main bundle to read, as in tests).
    public var bundleIdentifier: String?

    /// Broker options: off unless `enabledOnLinux`, a `transport`, a `brokerApp` or an `ssoExtension` is given
    /// (`workplaceJoin` turns no broker on); `bundleIdentifier` names the app's bundle where there is no main bundle.
    public init(enabledOnLinux: Bool = false, transport: (any MSALBrokerTransport)? = nil, brokerApp: MSALBrokerApp? = nil,
                ssoExtension: (any MSALSSOExtensionPerformer)? = nil, workplaceJoin: (any MSALWorkplaceJoinStore)? = nil,
                bundleIdentifier: String? = nil) {
        self.enabledOnLinux = enabledOnLinux
        self.workplaceJoin = workplaceJoin
        self.transport = transport
        self.brokerApp = brokerApp
        self.ssoExtension = ssoExtension
        self.bundleIdentifier = bundleIdentifier
    }

    /// The transport to use with `platform`'s, or nil when the broker is off (``MSALGlobalConfig/brokerAvailability``
    /// `.none` turns it off everywhere).
    func transport(platform: (any MSALBrokerTransport)?) -> (any MSALBrokerTransport)? {
        guard MSALGlobalConfig.brokerAvailability != .none else { return nil }
        if let transport { return transport }
        #if os(Linux)
        return enabledOnLinux ? platform : nil
        #else
        return nil
        #endif
    }
}
