import HummingbirdTLS
import MSALEmulatorCore

extension LoopbackCertificates {
    /// A TLS server configuration presenting the leaf and the CA.
    func serverTLSConfiguration() throws -> TLSConfiguration {
        let leaf = try NIOSSLCertificate(bytes: Array(leafPEM.utf8), format: .pem)
        let ca = try NIOSSLCertificate(bytes: Array(caPEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(leafKeyPEM.utf8), format: .pem)
        return TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(leaf), .certificate(ca)], privateKey: .privateKey(key))
    }
}
