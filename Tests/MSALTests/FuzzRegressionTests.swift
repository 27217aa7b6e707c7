import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALLoopback
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import MSALTestSupport
#endif

/// The fuzz targets' committed inputs (`Fuzz/Corpus/<target>`: seeds; `Fuzz/Regressions/<target>`: inputs that once
/// crashed or broke an invariant) through the same harnesses the fuzzers run (`FuzzHarness/`, linked from `Fuzz/Harness`).
@Suite("Fuzz corpus and regression inputs")
struct FuzzRegressionTests {
    static let fuzzDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz", isDirectory: true)

    /// The targets replayed in process (the loopback listener's inputs go to a real listener instead).
    static let parserTargets: [String] = Array(FuzzHarnesses.synchronous.keys) + Array(FuzzHarnesses.asynchronous.keys)
    static let targets: [String] = parserTargets + ["loopback"]

    /// The committed inputs of `target`, seeds first.
    static func inputs(_ target: String) -> [URL] {
        ["Corpus", "Regressions"].flatMap { kind -> [URL] in
            let directory = fuzzDirectory.appendingPathComponent(kind).appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
        }
    }

    @Test("Every target has a committed seed corpus")
    func everyTargetHasSeeds() {
        for target in Self.targets {
            let seeds = Self.inputs(target).filter { $0.path.contains("/Corpus/") }
            #expect(seeds.count >= 3, "\(target) has \(seeds.count) seeds")
        }
    }

    @Test("Committed inputs pass their harness", arguments: parserTargets)
    func committedInputs(target: String) async throws {
        let files = Self.inputs(target)
        #expect(!files.isEmpty)
        for file in files {
            let data = try Data(contentsOf: file)
            do {
                if let harness = FuzzHarnesses.synchronous[target] {
                    try harness(data)
                } else if let harness = FuzzHarnesses.asynchronous[target] {
                    try await harness(data)
                }
            } catch {
                Issue.record("\(target)/\(file.lastPathComponent): \(error)")
            }
        }
    }

    @Test("Committed loopback inputs, sent to a real listener on 127.0.0.1, get answers that keep the oracle")
    func loopbackInputs() async throws {
        let files = Self.inputs("loopback")
        #expect(!files.isEmpty)
        var accepted = 0
        for file in files {
            let data = try Data(contentsOf: file)
            let listener = try await LoopbackRedirectListener.start(LoopbackOracle.configuration)
            let answer = await RawConnection.exchange(port: listener.port, sending: data)
            let redirect = try? await listener.waitForRedirect(timeout: .milliseconds(300))
            await listener.close()
            if redirect != nil { accepted += 1 }
            do {
                try LoopbackOracle.check(request: data, answer: answer, redirect: redirect)
            } catch {
                Issue.record("loopback/\(file.lastPathComponent): \(error)")
            }
        }
        // The seeds hold a matching GET and a matching form POST: the oracle's acceptance path runs too.
        #expect(accepted >= 2)
    }

    @Test("The harnesses report a broken invariant instead of passing it")
    func harnessesCanFail() throws {
        // A code without the request's state is never taken: a harness that checks this must notice it.
        let response = MSALWebAuthenticationResponse(redirectUri: "http://localhost", parameters: ["code": "c", "state": "other"])
        #expect(throws: MSALErrorInfo.self) { try ProtocolFuzzing.authorizationRequest.read(response) }
        #expect(throws: FuzzFailure.self) { try fuzzCheck(false, "a broken invariant") }
        #expect(throws: FuzzFailure.self) {
            try LoopbackOracle.check(request: Data("GET /callback?state=x HTTP/1.1\r\n\r\n".utf8),
                                     answer: Data("HTTP/1.1 200 OK\r\n\r\n".utf8),
                                     redirect: LoopbackRedirect(method: "GET", parameters: ["state": "x"]))
        }
        #expect(throws: FuzzFailure.self) {
            _ = try fuzzExpectingTypedErrors("a parser") { () throws -> Int in throw CocoaError(.fileReadCorruptFile) }
        }
    }
}

/// One TCP connection to 127.0.0.1: send everything, half-close, read until the peer closes (or 5 s pass).
enum RawConnection {
    static func exchange(port: Int, sending data: Data) async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: blockingExchange(port: port, sending: data)) }
        }
    }

    private static func blockingExchange(port: Int, sending data: Data) -> Data {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return Data() }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return Data() }
        data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(fd, raw.baseAddress! + sent, raw.count - sent, 0)
                if n <= 0 { break }
                sent += n
            }
        }
        shutdown(fd, Int32(SHUT_WR))
        var answer = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            answer.append(contentsOf: buffer[0..<n])
        }
        return answer
    }
}
