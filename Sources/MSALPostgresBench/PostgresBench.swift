import ArgumentParser
import Foundation

/// `msal-postgres-bench run`: instances (processes) sharing one PostgreSQL token cache of many users' partitions.
///
/// The cluster comes from MSAL_POSTGRES_HOST, _PORT, _USER and _DATABASE (scripts/postgres-bench.sh starts a
/// throw-away one). `run` seeds the users' partitions in bulk, then starts `--processes` worker processes of
/// `--tasks` concurrent tasks each: a read phase (each process loads its own users from PostgreSQL, then serves
/// them again from memory) and a refresh phase (every process and task on the same partitions whose access tokens
/// expired). The identity provider counts refreshes per partition in PostgreSQL itself, so that a refresh token
/// presented after it was rotated away (a lost rotation) is detected across processes.
@main
struct PostgresBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msal-postgres-bench",
        abstract: "Latency and throughput of the PostgreSQL token cache shared by several processes.",
        subcommands: [Run.self, Worker.self], defaultSubcommand: Run.self)
}

/// The options `run` hands to its workers.
struct BenchOptions: ParsableArguments {
    @Option(help: "Users (partitions) seeded.") var users = 100_000
    @Option(help: "Worker processes (application instances).") var processes = 4
    @Option(help: "Concurrent tasks per process.") var tasks = 64
    @Option(help: "Users each process loads in the read phase.") var readUsers = 2_000
    @Option(help: "Times each process reads its users again from memory.") var rounds = 20
    @Option(help: "Users whose access tokens expired (hit by every process in the refresh phase).") var expired = 1_000
    @Option(help: "The table.") var table = "msal_bench_cache"
}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Seed, run the workers, print the figures.")
    @OptionGroup var options: BenchOptions

    func run() async throws {
        let seeded = try await BenchSeed.seed(options)
        print("seeded \(options.users) partitions in \(String(format: "%.1f", seeded.seconds)) s; "
              + "\(String(format: "%.2f", seeded.rowsPerUser)) rows and \(seeded.bytesPerUser) bytes per user "
              + "(encrypted document \(seeded.dataBytesPerUser) bytes)")
        let read = try await BenchWorkers.launch(phase: "read", options)
        BenchReport.print(read, phase: "read")
        let refresh = try await BenchWorkers.launch(phase: "refresh", options)
        BenchReport.print(refresh, phase: "refresh")
        let counts = try await BenchSeed.refreshCounts(options)
        print("refresh phase: \(counts.partitions) expired partitions, \(counts.refreshes) refreshes at the identity "
              + "provider (max per partition \(counts.maxPerPartition)), \(counts.lostRotations) lost rotations")
        if counts.refreshes != counts.partitions || counts.lostRotations != 0 {
            throw ExitCode(1)
        }
    }
}

struct Worker: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "One instance (run by `run`).", shouldDisplay: false)
    @OptionGroup var options: BenchOptions
    @Option var phase: String
    @Option var index: Int

    func run() async throws {
        let samples = try await BenchInstance.run(phase: phase, index: index, options)
        let data = try JSONEncoder().encode(samples)
        FileHandle.standardOutput.write(data)
        FileHandle.standardOutput.write(Data("\n".utf8))
    }
}
