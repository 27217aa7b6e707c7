import FuzzHarness

/// libFuzzer's entry point: one input to the `native-auth` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("native-auth", data, size)
    return 0
}
