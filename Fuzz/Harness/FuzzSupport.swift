public import Foundation
@testable import MSALCore

// Shared by the libFuzzer targets (Fuzz/) and the test suite (Tests/MSALTests/FuzzHarness links here).
// A harness feeds one input to one parser and checks what must hold for every input: no trap, only typed errors,
// and the parser's own invariants. A broken invariant is a thrown `FuzzFailure`; the fuzz targets turn it into a
// crash (so libFuzzer keeps the input), the tests into a failed expectation.

/// An invariant that did not hold for an input.
public struct FuzzFailure: Error, CustomStringConvertible, Sendable {
    /// What did not hold.
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// Throws `FuzzFailure(message)` unless `condition` holds.
public func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFailure) {
    if !condition { throw FuzzFailure(message()) }
}

/// Runs `body`; an `MSALErrorInfo` (the library's typed error for bad input) is a normal outcome and yields nil,
/// any other error is a failure.
func fuzzExpectingTypedErrors<T>(_ what: String, _ body: () throws -> T) throws -> T? {
    do {
        return try body()
    } catch is MSALErrorInfo {
        return nil
    } catch let failure as FuzzFailure {
        throw failure
    } catch {
        throw FuzzFailure("\(what) threw \(type(of: error)) instead of MSALErrorInfo")
    }
}

/// Fixed values the harnesses use as "the request we sent".
enum FuzzFixtures {
    static let clientId = "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
    static let tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47"
    static let state = "fuzz-state"
    static let nonce = "fuzz-nonce"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let correlationId = UUID(uuidString: "6b1c2a0e-1f43-4c8a-9d57-3c2b0d1e9f00")!
}

/// Every harness by target name (the directory names under `Fuzz/Corpus` and `Fuzz/Regressions`).
public enum FuzzHarnesses {
    /// The targets that run synchronously.
    public static let synchronous: [String: @Sendable (Data) throws -> Void] = [
        "cache-json": CacheFuzzing.cacheDocument,
        "json-reader": JSONDifferential.check,
        "id-token": ProtocolFuzzing.idToken,
        "client-info": ProtocolFuzzing.clientInfo,
        "token-response": ProtocolFuzzing.tokenResponse,
        "device-code": ProtocolFuzzing.deviceCode,
        "authorization-response": ProtocolFuzzing.authorizationResponse,
        "discovery": ProtocolFuzzing.discovery,
        "managed-identity": ConfidentialFuzzing.managedIdentity,
        "certificate-pem": ConfidentialFuzzing.certificatePEM,
        "pkcs12": ConfidentialFuzzing.pkcs12,
        "broker-answer": BrokerFuzzing.answer,
        "encrypted-cache": EncryptedCacheFuzzing.header,
        "pasted-redirect": PastedRedirectFuzzing.check,
        "www-authenticate": ChallengeFuzzing.wwwAuthenticate,
        "azure-cli": OutsideFilesFuzzing.azureCLI,
        "keychain-item": OutsideFilesFuzzing.keychainItem,
        "native-auth": NativeAuthFuzzing.answer,
        "embedded-webview": WebviewFuzzing.events,
    ]

    /// The targets that drive an actor (the emulator core).
    public static let asynchronous: [String: @Sendable (Data) async throws -> Void] = [
        "emulator": EmulatorFuzzing.request,
    ]

    /// Runs `body` to completion from synchronous code (a fuzz target's entry point; not from an async context).
    public static func blocking(_ body: @escaping @Sendable () async throws -> Void) throws {
        let outcome = FuzzOutcomeBox()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { try await body() } catch { outcome.set(error) }
            done.signal()
        }
        done.wait()
        if let error = outcome.get() { throw error }
    }

    /// The entry point of a fuzz target: runs the harness, and aborts with the failure for libFuzzer to record.
    public static func run(_ name: String, _ data: UnsafePointer<UInt8>?, _ size: Int) {
        let input = data.map { Data(bytes: $0, count: size) } ?? Data()
        do {
            if let harness = synchronous[name] {
                try harness(input)
            } else if let harness = asynchronous[name] {
                try blocking { try await harness(input) }
            } else {
                fatalError("no fuzz harness named \(name)")
            }
        } catch {
            fatalError("fuzz target \(name): \(error)")
        }
    }
}

/// The error of a task run by ``FuzzHarnesses/blocking(_:)``.
final class FuzzOutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var error: (any Error)?

    func set(_ error: any Error) { lock.withLock { self.error = error } }
    func get() -> (any Error)? { lock.withLock { error } }
}
