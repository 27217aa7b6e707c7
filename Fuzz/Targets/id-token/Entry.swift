import FuzzHarness

/// libFuzzer's entry point: one input to the `id-token` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("id-token", data, size)
    return 0
}
