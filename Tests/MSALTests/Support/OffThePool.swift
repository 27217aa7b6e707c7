import Foundation
import MSALTestSupport

/// Runs blocking work (waiting for a process, polling a file, a busy read loop) on a thread of its own, never on
/// the concurrency pool: on a 2-core machine the pool has two threads, and a test that blocks them stalls every
/// other test of the run (a loopback listener's request timeout then fires before its client gets to send).
///
/// The work stays in the calling task (a task executor preference), so `#expect` and `#require` inside it are
/// attributed to the running test as usual.
func offThePool<T>(_ body: () throws -> T) async throws -> T {
    try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try body() }
}

/// A task executor that runs every job on a new thread.
private final class ThreadPerJobExecutor: TaskExecutor {
    static let shared = ThreadPerJobExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread { job.runSynchronously(on: executor) }.start()
    }
}
