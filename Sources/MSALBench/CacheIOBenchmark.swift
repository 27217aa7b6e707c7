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
        for _ in 0..<rounds {
            let readStart = DispatchTime.now().uptimeNanoseconds
            guard let read = try storage.read() else { throw BenchError("the cache file vanished") }
            let parseStart = DispatchTime.now().uptimeNanoseconds
            let document = try MSALCacheCodec.parse(read.data)
            let serializeStart = DispatchTime.now().uptimeNanoseconds
            let serialized = MSALCacheCodec.serialize(document)
            let writeStart = DispatchTime.now().uptimeNanoseconds
            _ = try storage.write(serialized)
            let end = DispatchTime.now().uptimeNanoseconds
            reads.append(Double(parseStart - readStart) / 1e6)
            parses.append(Double(serializeStart - parseStart) / 1e6)
            serializes.append(Double(writeStart - serializeStart) / 1e6)
            writes.append(Double(end - writeStart) / 1e6)
        }
        let (read, parse, serialize, write) = (median(reads), median(parses), median(serializes), median(writes))
        return Figures(saveMilliseconds: serialize + write, loadMilliseconds: read + parse, readMilliseconds: read,
                       parseMilliseconds: parse, serializeMilliseconds: serialize, writeMilliseconds: write)
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
