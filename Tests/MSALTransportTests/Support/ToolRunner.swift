import Foundation

/// Runs a built executable of this package and collects its output, blocking only dispatch threads (never the
/// Swift concurrency pool, which servers in this process need).
enum ToolRunner {
    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    private final class Box: @unchecked Sendable {
        var data = Data()
    }

    static func run(_ name: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> Output {
        let process = Process()
        process.executableURL = try BuiltBinary.locate(name)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            let group = DispatchGroup()
            let outData = Box()
            let errData = Box()
            for (pipe, box) in [(out, outData), (err, errData)] {
                group.enter()
                DispatchQueue.global().async {
                    box.data = pipe.fileHandleForReading.readDataToEndOfFile()
                    group.leave()
                }
            }
            group.enter()
            process.terminationHandler = { _ in group.leave() }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            group.notify(queue: .global()) {
                continuation.resume(returning: Output(status: process.terminationStatus,
                                                      stdout: String(decoding: outData.data, as: UTF8.self),
                                                      stderr: String(decoding: errData.data, as: UTF8.self)))
            }
        }
    }
}

/// Finds an executable of this package next to the test bundle (both live in the build's bin directory).
enum BuiltBinary {
    static func locate(_ name: String) throws -> URL {
        var candidates: [URL] = []
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(directory.appendingPathComponent(name))
            directory = directory.deletingLastPathComponent()
        }
        for bundle in Bundle.allBundles {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/\(name)"))
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(name) was not found; run `swift build` first."])
    }
}
