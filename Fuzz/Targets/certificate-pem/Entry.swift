import FuzzHarness

/// libFuzzer's entry point: one input to the `certificate-pem` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("certificate-pem", data, size)
    return 0
}
