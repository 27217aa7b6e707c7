import Dispatch

/// Runs the `async` form of a call for its completion-block twin: the result or the error goes to `completion` on
/// `queue`.
enum CompletionBridge {
    static func deliver<T: Sendable>(on queue: DispatchQueue, to completion: @escaping @Sendable (T?, (any Error)?) -> Void,
                                     _ body: @escaping @Sendable () async throws -> T) {
        Task {
            do {
                let result = try await body()
                queue.async { completion(result, nil) }
            } catch {
                queue.async { completion(nil, error) }
            }
        }
    }
}
