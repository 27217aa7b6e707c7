import FuzzHarness

/// libFuzzer's entry point: one input to the `pkcs12` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("pkcs12", data, size)
    return 0
}
