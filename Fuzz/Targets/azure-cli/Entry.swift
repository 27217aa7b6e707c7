import FuzzHarness

/// libFuzzer's entry point: one input to the `azure-cli` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("azure-cli", data, size)
    return 0
}
