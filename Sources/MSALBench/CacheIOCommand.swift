import ArgumentParser
import Foundation
import MSAL

/// Parse, serialize and sign-in write of a unified cache file, for comparison with MSAL for Python on the same file
/// (`Benchmarks/msal_python_cache_io.py FILE`).
struct CacheIOCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache-io",
        abstract: "Times parse, serialize and a sign-in write of a unified cache FILE (medians).",
        discussion: """
            parse: bytes to the indexed document; serialize: the document to bytes; read/write: the file storage \
            (the write is atomic: temporary file, fsync, rename); sign-in: one sign-in added to the loaded cache and \
            the cache saved, as `acquireToken` does under the cache lock.

            Example: swift run --traits Tools -c release msal-bench cache-io --cache cache.json --rounds 9 --json
            """)

    @Option(help: "A unified cache file (for example one MSAL for Python wrote).") var cache: String
    @Option(help: "Rounds of each measurement.") var rounds = 9
    @Flag(help: "Print one JSON object.") var json = false
    @Option(help: "Only parse the file this many times and print the median (for profiling the parser).")
    var parseOnly: Int?

    func validate() throws {
        guard (1...1000).contains(rounds) else { throw ValidationError("--rounds must be 1...1000.") }
    }

    func run() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: cache))
        if let parseOnly {
            var parses: [Double] = []
            var kept: MSALCacheCodec.Document?
            for _ in 0..<max(1, parseOnly) {
                kept = nil  // the previous document is freed outside the timing, as MSAL for Python's is
                let start = DispatchTime.now().uptimeNanoseconds
                kept = try MSALCacheCodec.parse(data)
                parses.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            withExtendedLifetime(kept) {}
            print(String(format: "parse median %.4f ms", parses.sorted()[parses.count / 2]))
            return
        }
        let io = try CacheIOBenchmark.measure(data, rounds: rounds)
        let document = try MSALCacheCodec.parse(data)
        var signIns: [Double] = []
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = MSALFileTokenCacheStorage(fileURL: directory.appendingPathComponent("cache.json"))
        _ = try storage.write(data)
        for round in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            try storage.withExclusiveAccess {
                MSALCacheCodec.addSignIn(document, user: round)
                _ = try storage.write(MSALCacheCodec.serialize(document))
            }
            signIns.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        let signIn = signIns.sorted()[signIns.count / 2]
        let figures: [String: Any] = [
            "bytes": data.count, "parse_ms": io.parseMilliseconds, "serialize_ms": io.serializeMilliseconds,
            "read_ms": io.readMilliseconds, "write_ms": io.writeMilliseconds, "sign_in_write_ms": signIn,
        ]
        if json {
            let text = try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])
            print(String(decoding: text, as: UTF8.self))
        } else {
            print(String(format: "%d bytes: parse %.1f ms, serialize %.1f ms, read %.1f ms, atomic write %.1f ms, "
                         + "one sign-in (change + serialize + write) %.1f ms",
                         data.count, io.parseMilliseconds, io.serializeMilliseconds, io.readMilliseconds,
                         io.writeMilliseconds, signIn))
        }
    }
}
