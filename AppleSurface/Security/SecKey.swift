// Security's keys and certificates, as far as MSAL for Swift's device-registration lookup uses them: the key and
// certificate item classes and attributes it queries, the key and certificate types, signing with a key, and reading
// a certificate. Each declaration names its documentation page; the raw values of the constants are Security's own
// (SecItemConstants.c, SecKeyAdaptors.m).

public import Foundation

/// https://developer.apple.com/documentation/corefoundation/cferror (toll-free bridged with NSError)
public typealias CFError = NSError

// MARK: Item classes, attributes and return keys

/// https://developer.apple.com/documentation/security/ksecclasskey
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// https://developer.apple.com/documentation/security/ksecclasscertificate
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// https://developer.apple.com/documentation/security/ksecattrapplicationtag
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
/// https://developer.apple.com/documentation/security/ksecattrapplicationlabel
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// https://developer.apple.com/documentation/security/ksecattrpublickeyhash
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"
/// https://developer.apple.com/documentation/security/ksecattrkeytype
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// https://developer.apple.com/documentation/security/ksecattrkeytypersa
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
/// https://developer.apple.com/documentation/security/ksecattrkeytypeecsecprimerandom
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// https://developer.apple.com/documentation/security/ksecattrkeysizeinbits
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// https://developer.apple.com/documentation/security/ksecattrlabel
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// https://developer.apple.com/documentation/security/ksecattrdescription
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
/// https://developer.apple.com/documentation/security/ksecreturnref
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
/// https://developer.apple.com/documentation/security/ksecvalueref
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
/// https://developer.apple.com/documentation/security/ksecattrispermanent
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
/// https://developer.apple.com/documentation/security/ksecattrissensitive
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
/// https://developer.apple.com/documentation/security/ksecattrisextractable
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
/// https://developer.apple.com/documentation/security/ksecprivatekeyattrs
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = "private"

// MARK: Keys (https://developer.apple.com/documentation/security/seckey)

/// https://developer.apple.com/documentation/security/seckey (a Core Foundation type, imported as a class). The
/// stand-in signs with a closure a test gives (`surface…`, not Apple API).
public final class SecKey {
    let surfaceAlgorithms: Set<SecKeyAlgorithm>
    let surfaceSign: (SecKeyAlgorithm, Data) -> Data?
    let surfacePublicKey: SecKey?
    let surfaceExternalRepresentation: Data?

    /// A key that supports `algorithms` for signing and signs with `sign`, whose public key is `publicKey`, and whose
    /// external representation (for a public RSA key: PKCS #1 `RSAPublicKey` DER) is `externalRepresentation` (test
    /// control).
    public init(surfaceAlgorithms: Set<SecKeyAlgorithm>, sign: @escaping (SecKeyAlgorithm, Data) -> Data?,
                publicKey: SecKey? = nil, externalRepresentation: Data? = nil) {
        self.surfaceAlgorithms = surfaceAlgorithms
        self.surfaceSign = sign
        self.surfacePublicKey = publicKey
        self.surfaceExternalRepresentation = externalRepresentation
    }
}

/// https://developer.apple.com/documentation/security/seckeycreaterandomkey(_:_:) — the stand-in makes the key with
/// the keychain's key maker (``SurfaceKeychain/surfaceKeyMaker``) and, for `kSecAttrIsPermanent` private key
/// attributes, stores the private key with the request's attributes.
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    let (key, status) = SurfaceKeychain.shared.createRandomKey(parameters)
    if key == nil { error?.pointee = Unmanaged.passRetained(NSError(domain: "NSOSStatusErrorDomain", code: Int(status))) }
    return key
}

/// https://developer.apple.com/documentation/security/seckeycopypublickey(_:)
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    key.surfacePublicKey
}

/// https://developer.apple.com/documentation/security/seckeycopyexternalrepresentation(_:_:)
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    guard let data = key.surfaceExternalRepresentation else {
        error?.pointee = Unmanaged.passRetained(NSError(domain: "NSOSStatusErrorDomain", code: -25260))
        return nil
    }
    return data as NSData
}

/// https://developer.apple.com/documentation/security/seckeyalgorithm (`CF_STRING_ENUM`)
public struct SecKeyAlgorithm: Hashable, RawRepresentable, @unchecked Sendable {
    public let rawValue: CFString
    public init(rawValue: CFString) { self.rawValue = rawValue }

    /// https://developer.apple.com/documentation/security/seckeyalgorithm/rsasignaturedigestpkcs1v15sha256
    public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PKCS1v15:SHA256")
    /// https://developer.apple.com/documentation/security/seckeyalgorithm/rsasignaturemessagepkcs1v15sha256
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA256")
    /// https://developer.apple.com/documentation/security/seckeyalgorithm/ecdsasignaturedigestx962sha256
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:digest-X962:SHA256")
    /// https://developer.apple.com/documentation/security/seckeyalgorithm/ecdsasignaturemessagex962sha256
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm(rawValue: "algid:sign:ECDSA:message-X962:SHA256")
}

/// https://developer.apple.com/documentation/security/seckeyoperationtype (`CF_ENUM(CFIndex)`)
public enum SecKeyOperationType: Int, Sendable {
    case sign = 0
    case verify = 1
    case encrypt = 2
    case decrypt = 3
    case keyExchange = 4
}

/// https://developer.apple.com/documentation/security/seckeyisalgorithmsupported(_:_:_:)
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    operation == .sign && key.surfaceAlgorithms.contains(algorithm)
}

/// https://developer.apple.com/documentation/security/seckeycreatesignature(_:_:_:_:)
public func SecKeyCreateSignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    guard key.surfaceAlgorithms.contains(algorithm), let signature = key.surfaceSign(algorithm, dataToSign as Data) else {
        error?.pointee = Unmanaged.passRetained(NSError(domain: "NSOSStatusErrorDomain", code: -50))
        return nil
    }
    return signature as NSData
}

// MARK: Certificates (https://developer.apple.com/documentation/security/certificates)

/// https://developer.apple.com/documentation/security/seccertificate (a Core Foundation type, imported as a class).
/// The stand-in holds the DER and the subject summary a test gives (`surface…`, not Apple API).
public final class SecCertificate {
    let surfaceData: Data
    let surfaceSubjectSummary: String?

    /// A certificate of `der`, whose subject summary (its common name) is `subjectSummary` (test control).
    public init(surfaceData der: Data, subjectSummary: String?) {
        surfaceData = der
        surfaceSubjectSummary = subjectSummary
    }
}

/// https://developer.apple.com/documentation/security/seccertificatecopydata(_:)
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    certificate.surfaceData as NSData
}

/// https://developer.apple.com/documentation/security/seccertificatecopysubjectsummary(_:)
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.surfaceSubjectSummary.map { $0 as NSString }
}
