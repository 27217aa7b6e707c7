import Foundation
import MSALCore
import MSALSupport

/// Where ``MSALSystemBrowserWebAuthenticator`` reads redirect addresses the user pastes back (paste-back sign-in).
///
/// The authenticator asks for one line at a time while it also waits on its loopback listener; whichever brings
/// this sign-in's redirect first wins. A line that is not this sign-in's redirect is refused with a message and the
/// wait goes on. Return `nil` at the end of input: the listener alone is then waited for.
public protocol MSALPastedRedirectSource: Sendable {
    /// The next line the user entered, or `nil` when no more will come. Cancellation of the calling task must end
    /// the wait (return `nil` or throw `CancellationError`).
    func nextLine() async throws -> String?
}

/// Lines from the process's standard input, read on a thread of their own so that no task blocks on the terminal.
///
/// The thread starts at the first request and stays blocked on the terminal until the next line or the end of input;
/// a cancelled wait returns at once and leaves later lines to the next wait. Lines are capped at 64 KiB (on a
/// terminal in line mode the kernel itself keeps at most 4 KiB of a line; Entra ID redirects are shorter). One
/// instance serves a process: create it once.
public final class MSALStandardInputRedirectSource: MSALPastedRedirectSource {
    private let queue = LineQueue()
    private let started = LockedBox(false)

    /// Creates the source; nothing is read before the first ``nextLine()``.
    public init() {}

    public func nextLine() async throws -> String? {
        let first = started.withLock { started -> Bool in
            defer { started = true }
            return !started
        }
        if first { startReading() }
        return try await queue.next()
    }

    private func startReading() {
        let queue = queue
        let thread = Thread {
            while let line = StandardInput.readLine(limit: 64 * 1024) { queue.push(line) }
            queue.finish()
        }
        thread.name = "msal-pasted-redirect"
        thread.start()
    }
}

/// Lines handed from a reading thread to one waiting task at a time; a cancelled wait leaves later lines queued.
final class LineQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var finished = false
    private var waiter: (id: UUID, continuation: CheckedContinuation<String?, any Error>)?

    func push(_ line: String) {
        lock.lock()
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.continuation.resume(returning: line)
            return
        }
        if lines.count < 64 { lines.append(line) }
        lock.unlock()
    }

    func finish() {
        lock.lock()
        finished = true
        let waiting = waiter
        waiter = nil
        lock.unlock()
        waiting?.continuation.resume(returning: nil)
    }

    func next() async throws -> String? {
        let id = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String?, any Error>) in
                lock.lock()
                if !lines.isEmpty {
                    let line = lines.removeFirst()
                    lock.unlock()
                    continuation.resume(returning: line)
                } else if finished || Task.isCancelled || waiter != nil {
                    let cancelled = Task.isCancelled || waiter != nil
                    lock.unlock()
                    if cancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume(returning: nil) }
                } else {
                    waiter = (id, continuation)
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let waiting = waiter?.id == id ? waiter : nil
            if waiting != nil { waiter = nil }
            lock.unlock()
            waiting?.continuation.resume(throwing: CancellationError())
        }
    }
}
