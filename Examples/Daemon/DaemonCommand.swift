import ArgumentParser
import Crypto
import Foundation
import MSAL
import MSALEmulator
import MSALSamples
import SwiftASN1
import X509
import _CryptoExtras

/// A daemon that calls Microsoft Graph as itself with a certificate credential (client credentials). Without
/// --client-id (or with --emulator) it runs against the identity platform emulator started in this process, with a certificate it makes
/// and registers there; with real ids against Microsoft Entra ID.
@main
struct DaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Get an app token with a certificate and list the tenant's users with Microsoft Graph.",
        discussion: """
        Without --client-id (or with --emulator) the daemon runs against an identity platform emulator started in this process: it \
        makes a fresh RSA key and self-signed certificate, registers the certificate for the emulator's daemon app \
        and signs in with it. No account or network is needed.

        With a real app registration: --client-id, --tenant (id or domain) and --certificate (a PEM file with the \
        RSA private key and the certificate, as uploaded to the app registration); the app needs the Graph \
        application permission User.Read.All with admin consent.

        The mode and every setting come from the command line only; no environment variable is read.

        Examples:
          daemon
          daemon --client-id <id> --tenant contoso.onmicrosoft.com --certificate daemon.pem
        """
    )

    @Flag(help: "Run against the embedded identity platform emulator (the default without --client-id).")
    var emulator = false

    @Option(help: ArgumentHelp("The application (client) id; without it, the embedded emulator is used.", valueName: "id"))
    var clientId: String?

    @Option(help: ArgumentHelp("The tenant id or domain.", valueName: "tenant"))
    var tenant: String?

    @Option(help: ArgumentHelp("A PEM file with the RSA private key and its certificate.", valueName: "file"))
    var certificate: String?

    @Option(help: ArgumentHelp("The authority host.", valueName: "url"))
    var authorityHost = "https://login.microsoftonline.com"

    @Option(help: ArgumentHelp("The Microsoft Graph endpoint.", valueName: "url"))
    var graphEndpoint = "https://graph.microsoft.com/"

    func validate() throws {
        if emulator && clientId != nil {
            throw ValidationError("--emulator and --client-id choose different modes; give one of them.")
        }
        if clientId != nil && (tenant == nil || certificate == nil) {
            throw ValidationError("--client-id needs --tenant and --certificate.")
        }
        if clientId == nil && (tenant != nil || certificate != nil) {
            throw ValidationError("--tenant and --certificate need --client-id.")
        }
    }

    func run() async throws {
        let log: @Sendable (String) -> Void = { print($0) }
        if let clientId, let tenant, let certificate {
            let pem = try String(contentsOfFile: (certificate as NSString).expandingTildeInPath, encoding: .utf8)
            let settings = DaemonSettings(clientId: clientId, authority: "\(authorityHost)/\(tenant)",
                                          credential: .certificate(try MSALCertificateCredential(pem: pem)),
                                          graphEndpoint: graphEndpoint)
            _ = try await DaemonTutorial(settings: settings, log: log).run()
            return
        }
        let emulator = try await IdentityEmulator.start(EmulatorConfiguration.default)
        log("Started the identity platform emulator at \(emulator.httpURL.absoluteString)")
        do {
            let (keyPEM, certificatePEM) = try Self.selfSignedCertificate()
            _ = try await emulator.registerCertificate(certificatePEM, clientId: EmulatorConfiguration.daemonClientId)
            log("Registered a new certificate for the emulator's daemon app.")
            let credential = try MSALCertificateCredential(pem: keyPEM + "\n" + certificatePEM)
            let settings = DaemonSettings(
                clientId: EmulatorConfiguration.daemonClientId,
                authority: "\(emulator.httpURL.absoluteString)/\(EmulatorConfiguration.demoTenantId)",
                credential: .certificate(credential), graphEndpoint: emulator.httpURL.absoluteString + "/",
                cacheStorage: MSALInMemoryTokenCacheStorage())
            _ = try await DaemonTutorial(settings: settings, log: log).run()
            await emulator.stop()
        } catch {
            await emulator.stop()
            throw error
        }
    }

    /// A new RSA 2048 key and a self-signed certificate valid for a day, as PEM.
    static func selfSignedCertificate() throws -> (key: String, certificate: String) {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let name = try DistinguishedName { CommonName("msal-swift daemon example") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(86_400),
            issuer: name, subject: name, signatureAlgorithm: .sha256WithRSAEncryption,
            extensions: Certificate.Extensions(), issuerPrivateKey: Certificate.PrivateKey(key))
        return (key.pemRepresentation, try certificate.serializeAsPEM().pemString)
    }
}
