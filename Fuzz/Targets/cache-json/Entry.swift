import FuzzHarness

/// libFuzzer's entry point: one input to the `cache-json` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("cache-json", data, size)
    return 0
}
