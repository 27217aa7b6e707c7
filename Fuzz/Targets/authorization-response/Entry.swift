import FuzzHarness

/// libFuzzer's entry point: one input to the `authorization-response` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("authorization-response", data, size)
    return 0
}
