import Foundation

/// A first-come first-served lock for tasks: waiting suspends, never blocks a thread.
final class AsyncMutex: @unchecked Sendable {
    private let lock = NSLock()
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if held {
                waiters.append(continuation)
                lock.unlock()
            } else {
                held = true
                lock.unlock()
                continuation.resume()
            }
        }
    }

    func release() {
        lock.lock()
        if waiters.isEmpty {
            held = false
            lock.unlock()
        } else {
            let next = waiters.removeFirst()
            lock.unlock()
            next.resume()
        }
    }

    func withLock<T>(_ body: () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }
}

/// The storage took longer than its time bound; the caller went on without it.
struct StorageTimeout: Error, CustomStringConvertible {
    var seconds: TimeInterval
    var description: String { "the token cache storage did not answer within \(seconds) s" }
}

/// Runs storage calls with an upper bound on the time the caller waits: when the bound passes, the call is
/// cancelled and the caller goes on at once, whether or not the call honours cancellation.
enum Bounded {
    static func run<T: Sendable>(_ seconds: TimeInterval,
                                 _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = OnceResult<T>()
        let work = Task { race.finish(await Result { try await operation() }) }
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(RequestTimeout.seconds(seconds) * 1_000_000_000))
            if race.finish(.failure(StorageTimeout(seconds: seconds))) { work.cancel() }
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await race.value()
        } onCancel: {
            if race.finish(.failure(CancellationError())) { work.cancel() }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// The first of several outcomes, handed to one waiter.
final class OnceResult<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<T, any Error>?
    private var waiter: CheckedContinuation<T, any Error>?

    /// Whether an outcome was recorded.
    var isFinished: Bool { lock.withLock { outcome != nil } }

    /// Records `result` if nothing was recorded yet; returns whether it was.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        lock.lock()
        guard outcome == nil else { lock.unlock(); return false }
        outcome = result
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.resume(with: result)
        return true
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let outcome {
                lock.unlock()
                continuation.resume(with: outcome)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}

/// Holds a partition's cross-instance lock from a task of its own, so that the lock can outlive the call that took
/// it (a token request) and be released when the public call ends, also when that call is cancelled or fails.
final class PartitionLockHolder: Sendable {
    private let release: AsyncStream<Void>.Continuation
    private let task: Task<Void, Never>

    private init(release: AsyncStream<Void>.Continuation, task: Task<Void, Never>) {
        self.release = release
        self.task = task
    }

    /// Takes the lock; returns once it is held, or throws the storage's error (a lock timeout among them), or
    /// ``StorageTimeout`` when the storage neither grants nor refuses the lock within `bound` seconds.
    static func acquire(_ storage: any MSALPartitionedTokenCacheStorage, partition: String,
                        timeout: TimeInterval, bound: TimeInterval) async throws -> PartitionLockHolder {
        let acquired = OnceResult<Void>()
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let task = Task.detached {
            do {
                try await storage.withPartitionLock(partition: partition, timeout: timeout) {
                    acquired.finish(.success(()))
                    for await _ in stream { break }
                }
            } catch {
                acquired.finish(.failure(error))
            }
            acquired.finish(.failure(CancellationError()))
        }
        let timer = Task {
            try? await Task.sleep(nanoseconds: UInt64(RequestTimeout.seconds(bound) * 1_000_000_000))
            if acquired.finish(.failure(StorageTimeout(seconds: bound))) { task.cancel() }
        }
        defer { timer.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await acquired.value()
            } onCancel: {
                continuation.finish()
                task.cancel()
            }
        } catch {
            continuation.finish()
            throw error
        }
        return PartitionLockHolder(release: continuation, task: task)
    }

    /// Releases the lock and waits (at most `seconds`) until the storage has released it.
    func release(waitingAtMost seconds: TimeInterval) async {
        release.finish()
        let task = self.task
        _ = try? await Bounded.run(seconds) { await task.value }
    }
}
