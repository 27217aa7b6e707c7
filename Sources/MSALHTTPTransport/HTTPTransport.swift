import CMSALCurl
import Foundation
import MSALSupport

/// An HTTP client for identity-provider and API requests, on the system's libcurl (loaded at run time).
///
/// - Redirects are never followed: a 3xx comes back as a response, for the caller to refuse or to follow under its
///   own rules.
/// - Every request is bounded by its own ``HTTPTransportRequest/timeout`` (connection, response head and whole
///   body). Waiting costs no CPU: libcurl waits in `poll`.
/// - Cancelling the calling task stops the request at once (its connection is closed); the call throws
///   `CancellationError`.
/// - Connections are reused (HTTP/1.1 keep-alive, HTTP/2 when the server offers it).
/// - Building it needs no curl headers: `libcurl.so.4` is loaded on the first request (every Linux system with
///   curl has it). Where it is missing, requests fail with ``HTTPTransportError/Kind/other`` saying so.
///
/// Lifecycle: ``shared`` lives for the whole process and is never shut down. An instance you create owns its
/// connections: call ``shutdown()`` when done; releasing the last reference closes them too.
public final class HTTPTransport: Sendable {
    /// The process-wide transport, configured from the environment when first used
    /// (``HTTPTransportConfiguration/fromEnvironment(_:)``). ``shutdown()`` does nothing on it.
    public static let shared = HTTPTransport(configuration: .fromEnvironment(), isShared: true)

    /// What this transport trusts and where it connects through.
    public let configuration: HTTPTransportConfiguration

    /// The trust options, or why `https` cannot work with this configuration. Built on first `https` use: a process
    /// that never connects never reads a trust store.
    private let trust = LockedBox<Result<CurlTrust, HTTPTransportError>?>(nil)
    private let pool: CurlWorkerPool
    private let isShared: Bool

    /// Creates a transport. Call ``shutdown()`` when it is no longer needed.
    public convenience init(configuration: HTTPTransportConfiguration = HTTPTransportConfiguration()) {
        self.init(configuration: configuration, isShared: false)
    }

    private init(configuration: HTTPTransportConfiguration, isShared: Bool) {
        self.configuration = configuration
        self.isShared = isShared
        pool = CurlWorkerPool(idleSeconds: configuration.boundedIdleConnectionTimeout)
    }

    /// Closes every idle connection. Later requests fail with ``HTTPTransportError/Kind/shutDown``. Does nothing on
    /// ``shared``.
    public func shutdown() async throws {
        guard !isShared else { return }
        pool.shutdown()
    }

    /// Sends `request` and returns the response with its whole body.
    ///
    /// - Throws: ``HTTPTransportError`` for transport failures (including the timeout); `CancellationError` when
    ///   the calling task is cancelled. Any HTTP status is a response.
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let prepared = try CurlRequest(request, configuration: configuration)
        let trust = prepared.isHTTPS ? try trustOptions() : nil
        try Task.checkCancellation()
        let worker = try pool.take()
        let cancellation = CurlCancellation(worker)
        let limit = configuration.maximumResponseBodySize
        let outcome: Result<HTTPTransportResponse, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(returning: Result { try prepared.perform(on: worker, trust: trust, limit: limit) })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        cancellation.finish()
        pool.giveBack(worker)
        if case .failure = outcome, Task.isCancelled { throw CancellationError() }
        return try outcome.get()
    }

    /// The trust options, built once.
    private func trustOptions() throws -> CurlTrust {
        try trust.withLock { cached in
            if let cached { return cached }
            let built: Result<CurlTrust, HTTPTransportError>
            do {
                built = .success(try CurlTrust.make(configuration) {
                    CurlTrust.systemBundlePath(asking: try? CurlWorker())
                })
            } catch let error as HTTPTransportError {
                built = .failure(error)
            } catch {
                built = .failure(CurlTrust.failure(String(describing: type(of: error))))
            }
            cached = built
            return built
        }.get()
    }
}
