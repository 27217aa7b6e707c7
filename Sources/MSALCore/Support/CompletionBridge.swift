import Dispatch

/// Runs the `async` form of a call for its completion-block twin: the result or the error goes to `completion` on
/// `queue`.
enum CompletionBridge {
    static func deliver<T: Sendable>(on queue: DispatchQueue, to completion: @escaping (T?, (any Error)?) -> Void,
                                     _ body: @escaping @Sendable () async throws -> T) {
        let carrier = CompletionCarrier(block: completion)
        Task {
            do {
                let result = try await body()
                queue.async { carrier.block(result, nil) }
            } catch {
                queue.async { carrier.block(nil, error) }
            }
        }
    }

    /// Runs `work` (which calls an application's completion block) on `queue`.
    static func async(on queue: DispatchQueue, _ work: @escaping () -> Void) {
        let carrier = CompletionCarrier(block: work)
        queue.async { carrier.block() }
    }
}

/// An application's completion block on its way to the queue it runs on. The blocks are not `@Sendable` (one written
/// in a view controller is isolated to the main actor); MSAL calls each once, on the completion queue only, which is
/// the main queue on Apple platforms unless the application chose another.
struct CompletionCarrier<Block>: @unchecked Sendable {
    let block: Block
}
