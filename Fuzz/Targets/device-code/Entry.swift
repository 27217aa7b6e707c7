import FuzzHarness

/// libFuzzer's entry point: one input to the `device-code` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("device-code", data, size)
    return 0
}
