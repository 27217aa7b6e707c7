import Foundation
import MSAL

/// Times cache serialization + atomic write, and read + parse, of a unified cache document.
enum CacheIOBenchmark {
    struct Figures {
        var saveMilliseconds: Double
        var loadMilliseconds: Double
        /// The parts: reading the file, parsing and indexing, serializing, and the atomic write (with fsync).
        var readMilliseconds: Double
        var parseMilliseconds: Double
        var serializeMilliseconds: Double
        var writeMilliseconds: Double
    }

    static func measure(_ data: Data, rounds: Int = 7) throws -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = MSALFileTokenCacheStorage(fileURL: directory.appendingPathComponent("cache.json"))
        _ = try storage.write(data)
        var reads: [Double] = [], parses: [Double] = [], serializes: [Double] = [], writes: [Double] = []
        // The file storage: read, and the atomic write (fsync), of the document as it is.
        for _ in 0..<rounds {
            let readStart = DispatchTime.now().uptimeNanoseconds
            guard try storage.read() != nil else { throw BenchError("the cache file vanished") }
            let writeStart = DispatchTime.now().uptimeNanoseconds
            _ = try storage.write(data)
            let end = DispatchTime.now().uptimeNanoseconds
            reads.append(Double(writeStart - readStart) / 1e6)
            writes.append(Double(end - writeStart) / 1e6)
        }
        // Parse and serialize in memory, as `Benchmarks/msal_python_cache_io.py` times MSAL for Python's; the previous
        // round's document is freed outside the timing, as MSAL for Python's is.
        var kept: MSALCacheCodec.Document?
        for _ in 0..<rounds {
            kept = nil
            let parseStart = DispatchTime.now().uptimeNanoseconds
            let document = try MSALCacheCodec.parse(data)
            let serializeStart = DispatchTime.now().uptimeNanoseconds
            let serialized = MSALCacheCodec.serialize(document)
            let end = DispatchTime.now().uptimeNanoseconds
            guard !serialized.isEmpty else { throw BenchError("nothing serialized") }
            kept = document
            parses.append(Double(serializeStart - parseStart) / 1e6)
            serializes.append(Double(end - serializeStart) / 1e6)
        }
        withExtendedLifetime(kept) {}
        let (read, parse, serialize, write) = (median(reads), median(parses), median(serializes), median(writes))
        return Figures(saveMilliseconds: serialize + write, loadMilliseconds: read + parse, readMilliseconds: read,
                       parseMilliseconds: parse, serializeMilliseconds: serialize, writeMilliseconds: write)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
