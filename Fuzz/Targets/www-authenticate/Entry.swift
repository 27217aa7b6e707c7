import FuzzHarness

/// libFuzzer's entry point: one input to the `www-authenticate` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("www-authenticate", data, size)
    return 0
}
