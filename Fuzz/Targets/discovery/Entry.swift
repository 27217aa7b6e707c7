import FuzzHarness

/// libFuzzer's entry point: one input to the `discovery` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("discovery", data, size)
    return 0
}
