import FuzzHarness

/// libFuzzer's entry point: one input to the `keychain-item` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("keychain-item", data, size)
    return 0
}
