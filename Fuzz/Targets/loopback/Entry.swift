import Foundation
import FuzzHarness
import FuzzLoopback

/// libFuzzer's entry point: one input as one connection to the loopback redirect listener.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Data(bytes: $0, count: size) } ?? Data()
    do {
        try FuzzHarnesses.blocking { try await LoopbackFuzzing.connection(input) }
    } catch {
        fatalError("fuzz target loopback: \(error)")
    }
    return 0
}
