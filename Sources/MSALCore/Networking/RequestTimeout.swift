package import Foundation

/// Bounds an exchange by the request's timeout with a sleeping timer task (no CPU while waiting).
package enum RequestTimeout {
    /// `timeout` made usable: at least 1 ms, at most a day, a day when not finite.
    package static func seconds(_ timeout: TimeInterval) -> TimeInterval {
        timeout.isFinite ? min(max(timeout, 0.001), 86_400) : 86_400
    }

    /// Runs `operation`; when it has not finished after `seconds`, cancels it and throws `URLError(.timedOut)`.
    package static func run<T: Sendable>(_ seconds: TimeInterval, host: String?,
                                 _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(nanoseconds: ExternalNumber.nanoseconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw URLError(.timedOut, userInfo: [
                    NSLocalizedDescriptionKey: "The request to \(host ?? "the server") timed out after \(seconds) s.",
                ])
            }
            return value
        }
    }
}
