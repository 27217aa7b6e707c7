import FuzzHarness

/// libFuzzer's entry point: one input to the `managed-identity` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("managed-identity", data, size)
    return 0
}
