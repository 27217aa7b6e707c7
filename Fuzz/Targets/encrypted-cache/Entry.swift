import FuzzHarness

/// libFuzzer's entry point: one input to the `encrypted-cache` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("encrypted-cache", data, size)
    return 0
}
