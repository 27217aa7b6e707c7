import FuzzHarness

/// libFuzzer's entry point: one input to the `embedded-webview` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarnesses.run("embedded-webview", data, size)
    return 0
}
