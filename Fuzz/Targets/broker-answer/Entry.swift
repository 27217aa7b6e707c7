import FuzzHarness

/// libFuzzer's entry point: one input to the `broker-answer` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("broker-answer", data, size)
    return 0
}
