import Foundation

/// Starts the worker processes of a phase (this executable, `worker`) and collects what they measured.
enum BenchWorkers {
    static func launch(phase: String, _ options: BenchOptions) async throws -> [BenchSamples] {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        var running: [(Process, Pipe)] = []
        for index in 0..<options.processes {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["worker", "--phase", phase, "--index", String(index),
                                 "--users", String(options.users), "--processes", String(options.processes),
                                 "--tasks", String(options.tasks), "--read-users", String(options.readUsers),
                                 "--rounds", String(options.rounds), "--expired", String(options.expired),
                                 "--table", options.table]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            running.append((process, pipe))
        }
        var results: [BenchSamples] = []
        for (process, pipe) in running {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw BenchError("a \(phase) worker exited with status \(process.terminationStatus)")
            }
            results.append(try JSONDecoder().decode(BenchSamples.self, from: data))
        }
        return results
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Percentiles and throughput.
enum BenchReport {
    static func print(_ results: [BenchSamples], phase: String) {
        func line(_ name: String, _ samples: [Double]) {
            guard !samples.isEmpty else { return }
            let sorted = samples.sorted()
            func at(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] }
            Swift.print(String(format: "  %-34@ n=%7d  p50 %9.1f µs  p99 %9.1f µs", name as NSString, sorted.count,
                               at(0.5), at(0.99)))
        }
        let errors = results.reduce(0) { $0 + $1.errors }
        Swift.print("\(phase) phase (\(results.count) processes), errors: \(errors)")
        if phase == "read" {
            line("L2 hit (partition load, loadAccount)", results.flatMap(\.l2))
            line("L2 hit, one task alone", results.flatMap(\.l2Sequential))
            line("L1 hit (acquireTokenSilent)", results.flatMap(\.l1))
            line("L1 hit, one task alone (silent)", results.flatMap(\.l1Sequential))
            line("L1 hit, one task alone (app token)", results.flatMap(\.appSequential))
            let throughput = results.reduce(0.0) { $0 + Double($1.l1.count) / max($1.l1Seconds, 1e-9) }
            Swift.print(String(format: "  L1 throughput: %.0f calls/s across processes", throughput))
        } else {
            line("refresh (this call's task refreshed)", results.flatMap(\.refresh))
            line("expired, used another's refresh", results.flatMap(\.waited))
        }
        Swift.print("  counters: l1Hits \(results.reduce(0) { $0 + $1.l1Hits }), l2Hits \(results.reduce(0) { $0 + $1.l2Hits }), "
                    + "l2Errors \(results.reduce(0) { $0 + $1.l2Errors }), tokenRequests \(results.reduce(0) { $0 + $1.tokenRequests }), "
                    + "staleReloads \(results.reduce(0) { $0 + $1.staleReloads })")
    }
}
