import Foundation
import MSAL

/// Times cache serialization + atomic write, and read + parse, of a unified cache document.
enum CacheIOBenchmark {
    struct Figures { var saveMilliseconds: Double; var loadMilliseconds: Double }

    static func measure(_ data: Data, rounds: Int = 7) throws -> Figures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("msal-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = MSALFileTokenCacheStorage(fileURL: directory.appendingPathComponent("cache.json"))
        _ = try storage.write(data)
        var loads: [Double] = []
        var saves: [Double] = []
        for _ in 0..<rounds {
            let loadStart = DispatchTime.now().uptimeNanoseconds
            guard let read = try storage.read() else { throw BenchError("the cache file vanished") }
            let document = try MSALCacheCodec.parse(read.data)
            loads.append(Double(DispatchTime.now().uptimeNanoseconds - loadStart) / 1e6)

            let saveStart = DispatchTime.now().uptimeNanoseconds
            let serialized = MSALCacheCodec.serialize(document)
            _ = try storage.write(serialized)
            saves.append(Double(DispatchTime.now().uptimeNanoseconds - saveStart) / 1e6)
        }
        return Figures(saveMilliseconds: median(saves), loadMilliseconds: median(loads))
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
