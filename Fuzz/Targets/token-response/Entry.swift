import FuzzHarness

/// libFuzzer's entry point: one input to the `token-response` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("token-response", data, size)
    return 0
}
