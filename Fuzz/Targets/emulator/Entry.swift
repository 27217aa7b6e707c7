import FuzzHarness

/// libFuzzer's entry point: one input to the `emulator` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("emulator", data, size)
    return 0
}
