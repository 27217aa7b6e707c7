import FuzzHarness

/// libFuzzer's entry point: one input to the `client-info` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("client-info", data, size)
    return 0
}
