public import Foundation

/// One way for tests to wait for something another task or process does: a condition, checked until it holds or
/// until `within` seconds of real time have passed, which throws ``WaitTimedOut`` (the test fails with it). Real
/// time only bounds the wait: the wait ends as soon as the condition holds.
public func eventually(within seconds: TimeInterval = 30, _ what: @autoclosure () -> String = "the condition",
                       _ condition: @Sendable () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while !(try await condition()) {
        guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what(), seconds: seconds) }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
}

/// The value of `task`, waiting at most `within` seconds of real time; past that the task is cancelled and
/// ``WaitTimedOut`` is thrown (the test fails with it).
public func value<T: Sendable>(of task: Task<T, any Error>, within seconds: TimeInterval = 30) async throws -> T {
    let timedOut = Flag()
    let watchdog = Task {
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
        timedOut.set()
        task.cancel()
    }
    defer { watchdog.cancel() }
    let result = await task.result
    if timedOut.isSet { throw WaitTimedOut(what: "the task", seconds: seconds) }
    return try result.get()
}

/// A bounded wait ran out.
public struct WaitTimedOut: Error, CustomStringConvertible {
    public var what: String
    public var seconds: TimeInterval
    public var description: String { "\(what) did not happen within \(seconds) s" }
}

/// A gate tasks wait at until the test opens it, counting arrivals so that the test knows who is waiting. Waiting
/// ends when the gate opens or the waiting task is cancelled (it throws `CancellationError` then).
public final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var open = false
    private var arrivals = 0
    private var waiting: [UUID: CheckedContinuation<Void, any Error>] = [:]

    public init() {}

    /// How many tasks arrived at the gate so far.
    public var arrived: Int { lock.withLock { arrivals } }

    /// Waits until the gate opens.
    public func pass() async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.lock()
                arrivals += 1
                if open {
                    lock.unlock()
                    continuation.resume()
                } else if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiting[id] = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            let continuation = lock.withLock { waiting.removeValue(forKey: id) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Opens the gate: every waiting and later task passes.
    public func openGate() {
        let continuations = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            open = true
            defer { waiting.removeAll() }
            return Array(waiting.values)
        }
        for continuation in continuations { continuation.resume() }
    }

    /// Waits (bounded) until `count` tasks arrived at the gate.
    public func waitForArrivals(_ count: Int, within seconds: TimeInterval = 30) async throws {
        try await eventually(within: seconds, "\(count) arrivals at the gate") { self.arrived >= count }
    }
}

/// A flag set once, read from any thread.
public final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    public init() {}
    public func set() { lock.withLock { value = true } }
    public var isSet: Bool { lock.withLock { value } }
}
