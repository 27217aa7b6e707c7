import Foundation
@testable import MSALCertificates
@testable import MSALCore

/// Outside input of confidential clients and managed identities: a managed identity endpoint's answer, Azure Arc's
/// challenge header, and a certificate credential's PEM bundle.
enum ConfidentialFuzzing {
    static func managedIdentity(_ data: Data) throws {
        // The input as a managed identity endpoint's body, for each source.
        for source in [MSALManagedIdentitySource.imds, .appService, .azureArc] {
            let response = MSALHTTPResponse(statusCode: 200, headers: ["Content-Type": "application/json"], body: data)
            if let token = try fuzzExpectingTypedErrors("ManagedIdentityResponse", {
                try ManagedIdentityResponse(response, source: source, now: FuzzFixtures.now,
                                            correlationId: FuzzFixtures.correlationId)
            }) {
                try fuzzCheck(!token.accessToken.isEmpty, "an empty access token was taken")
                try fuzzCheck(token.expiresOn > FuzzFixtures.now, "a token that expired already was taken")
                try fuzzCheck(token.expiresOn.timeIntervalSince(FuzzFixtures.now) <= ExternalNumber.maximumLifetime,
                              "an unbounded lifetime was taken")
            }
            let failure = ManagedIdentityResponse.failure(MSALHTTPResponse(statusCode: 400, body: data), source: source,
                                                          correlationId: FuzzFixtures.correlationId)
            try fuzzCheck(!failure.errorDescription.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" },
                          "a control character from the endpoint reached the error message")
        }
        // The input as Azure Arc's WWW-Authenticate header: a key file is only ever named inside the directory.
        let header = String(decoding: data.prefix(4096), as: UTF8.self)
        let directory = "/var/opt/azcmagent/tokens"
        if let path = try fuzzExpectingTypedErrors("AzureArcChallenge.keyFile", {
            try AzureArcChallenge.keyFile(wwwAuthenticate: header, directory: directory, correlationId: FuzzFixtures.correlationId)
        }) {
            let url = URL(fileURLWithPath: path)
            try fuzzCheck(url.deletingLastPathComponent().path == directory && url.pathExtension == "key",
                          "the challenge named a key file outside the agent's directory: \(path)")
        }
    }

    /// A PKCS#12 file opened with the seeds' password: a typed failure or a key and certificates, and through the
    /// public initializer an MSALErrorInfo or a credential valid at the fixed date. Iteration counts are bounded low
    /// here so that the fuzzer spends its time on structure.
    static func pkcs12(_ data: Data) throws {
        let container: PKCS12Container
        do {
            container = try PKCS12Container(der: Array(data), password: "Passw0rd!", limits: .init(iterations: 4096))
        } catch {
            return   // typed: PKCS12Container.Failure
        }
        try fuzzCheck(!container.privateKeyDER.isEmpty && !container.certificatesDER.isEmpty,
                      "a PKCS#12 file was read without a key or a certificate")
        if let credential = try fuzzExpectingTypedErrors("MSALCertificateCredential(pkcs12:)", {
            try MSALCertificateCredential(pkcs12: data, password: "Passw0rd!", now: FuzzFixtures.now)
        }) {
            try fuzzCheck(credential.notValidBefore <= FuzzFixtures.now && FuzzFixtures.now <= credential.notValidAfter,
                          "a certificate outside its validity was taken")
        }
    }

    static func certificatePEM(_ data: Data) throws {
        let text = String(decoding: data, as: UTF8.self)
        if let credential = try fuzzExpectingTypedErrors("MSALCertificateCredential", {
            try MSALCertificateCredential(pem: text, now: FuzzFixtures.now)
        }) {
            try fuzzCheck(!credential.thumbprintSHA256.isEmpty, "a credential without a thumbprint was made")
            try fuzzCheck(credential.notValidBefore <= FuzzFixtures.now && FuzzFixtures.now <= credential.notValidAfter,
                          "a certificate outside its validity was taken")
        }
    }
}
