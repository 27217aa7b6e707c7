import FuzzHarness

/// libFuzzer's entry point: one input to the `json-reader` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("json-reader", data, size)
    return 0
}
