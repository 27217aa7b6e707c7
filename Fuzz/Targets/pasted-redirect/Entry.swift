import FuzzHarness

/// libFuzzer's entry point: one input to the `pasted-redirect` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("pasted-redirect", data, size)
    return 0
}
