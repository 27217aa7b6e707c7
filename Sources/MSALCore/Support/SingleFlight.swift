import Foundation

/// Runs at most one operation per key at a time: concurrent callers with the same key share its result. Keys name
/// the kind of token too, so that one registry serves operations of every result type.
actor SingleFlight {
    private var inFlight: [String: Task<any Sendable, any Error>] = [:]
    /// The callers waiting for an operation now, the one that started it included (what tests wait on to know
    /// that concurrent callers have joined).
    private(set) var callers = 0

    func run<Value: Sendable>(_ key: String,
                              _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        callers += 1
        defer { callers -= 1 }
        let task: Task<any Sendable, any Error>
        if let existing = inFlight[key] {
            task = existing
        } else {
            task = Task { try await operation() }
            inFlight[key] = task
        }
        defer { if inFlight[key] == task { inFlight[key] = nil } }
        guard let value = try await task.value as? Value else {
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "Two kinds of request shared one key.")
        }
        return value
    }
}

/// An in-process lock per key: callers with the same key run one at a time, in the order they came.
actor KeyedTurns {
    /// The keys held, each with the callers waiting for it.
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    func acquire(_ key: String) async {
        guard waiting[key] != nil else {
            waiting[key] = []
            return
        }
        await withCheckedContinuation { waiting[key, default: []].append($0) }
    }

    func release(_ key: String) {
        guard var queue = waiting[key] else { return }
        if queue.isEmpty {
            waiting[key] = nil
        } else {
            let next = queue.removeFirst()
            waiting[key] = queue
            next.resume()
        }
    }
}
