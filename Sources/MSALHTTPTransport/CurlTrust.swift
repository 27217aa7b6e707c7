import CMSALCurl
import Foundation

/// The certificate authorities a transfer trusts, as libcurl options: built once per transport from its
/// ``HTTPTransportConfiguration``, with the files read and the PEM checked then, so that a bad configuration fails
/// clearly once instead of at every connection.
struct CurlTrust: Sendable {
    /// libcurl's own default (the system's store), or a bundle file in its place (nil: none).
    var caFile: Setting<String>
    /// libcurl's default, or a directory of hashed certificates in its place (nil: none).
    var caDirectory: Setting<String>
    /// A bundle given as bytes (the system's or configured bundle with the additional roots appended), which takes
    /// the place of ``caFile``.
    var bundle: Data?

    enum Setting<Value: Sendable>: Sendable {
        case libraryDefault
        case value(Value?)
    }

    /// The libcurl defaults: the system's store.
    static let system = CurlTrust(caFile: .libraryDefault, caDirectory: .libraryDefault, bundle: nil)

    /// The trust `configuration` asks for. Throws ``HTTPTransportError/Kind/secureConnectionFailed`` naming an
    /// unreadable file or a root that is not a PEM certificate.
    static func make(_ configuration: HTTPTransportConfiguration, systemBundle: () -> String?) throws -> CurlTrust {
        var trust = CurlTrust.system
        var baseFile: String?
        if case .locations(let file, let directory) = configuration.trustRoots {
            for path in [file, directory].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: path) {
                throw failure("\(path) cannot be read")
            }
            trust.caFile = .value(file)
            trust.caDirectory = .value(directory)
            baseFile = file
        } else if !configuration.additionalTrustRootsPEM.isEmpty {
            baseFile = systemBundle()
        }
        guard !configuration.additionalTrustRootsPEM.isEmpty else { return trust }
        var bundle = Data()
        if let baseFile {
            guard let base = FileManager.default.contents(atPath: baseFile) else { throw failure("\(baseFile) cannot be read") }
            bundle.append(base)
            bundle.append(UInt8(ascii: "\n"))
        }
        for (index, pem) in configuration.additionalTrustRootsPEM.enumerated() {
            guard PEMCertificates.count(in: pem) > 0 else {
                throw failure("additional trust root \(index + 1) is not a PEM certificate")
            }
            bundle.append(contentsOf: pem.utf8)
            bundle.append(UInt8(ascii: "\n"))
        }
        trust.bundle = bundle
        return trust
    }

    /// Sets the options on a reset worker; a bundle libcurl cannot take (before 7.77, or a TLS library without
    /// blob support) is an error naming the reason.
    func apply(to worker: CurlWorker) throws {
        if case .value(let file) = caFile, bundle == nil { try set(MSAL_CURLOPT_CAINFO, file, on: worker) }
        if case .value(let directory) = caDirectory { try set(MSAL_CURLOPT_CAPATH, directory, on: worker) }
        if let bundle {
            let code = bundle.withUnsafeBytes { msal_curl_set_blob(worker.raw, MSAL_CURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) }
            guard code == 0 else {
                throw Self.failure("this libcurl cannot take additional trust roots (libcurl \(code): "
                                   + String(cString: msal_curl_strerror(code)) + ")")
            }
        }
    }

    private func set(_ option: Int32, _ value: String?, on worker: CurlWorker) throws {
        let code = value.map { msal_curl_set_string(worker.raw, option, $0) } ?? msal_curl_set_string(worker.raw, option, nil)
        guard code == 0 else {
            throw Self.failure("libcurl refused a trust location (libcurl \(code): \(String(cString: msal_curl_strerror(code))))")
        }
    }

    static func failure(_ reason: String) -> HTTPTransportError {
        HTTPTransportError(.secureConnectionFailed, "The configured trust roots cannot be used (\(reason)).")
    }

    /// The system's bundle file: the one libcurl was built to use (libcurl 7.84 and later say), else the first
    /// readable of the usual places.
    static func systemBundlePath(asking worker: CurlWorker?) -> String? {
        if let worker, let path = msal_curl_info_string(worker.raw, MSAL_CURLINFO_CAINFO).map({ String(cString: $0) }),
           FileManager.default.isReadableFile(atPath: path) {
            return path
        }
        return ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt",
                "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", "/etc/ssl/ca-bundle.pem", "/etc/ssl/cert.pem"]
            .first { FileManager.default.isReadableFile(atPath: $0) }
    }
}

/// PEM certificate blocks, counted as libcurl's TLS library will read them: `BEGIN CERTIFICATE` to
/// `END CERTIFICATE` around base64 of a DER SEQUENCE.
enum PEMCertificates {
    static func count(in text: String) -> Int {
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        var count = 0
        var rest = text[...]
        while let start = rest.range(of: begin), let stop = rest[start.upperBound...].range(of: end) {
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)), der.first == 0x30 else { return 0 }
            count += 1
            rest = rest[stop.upperBound...]
        }
        return count
    }
}
