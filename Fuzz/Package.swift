// swift-tools-version:6.1
// libFuzzer targets for every parser of outside input in MSAL for Swift. Kept apart from the main package so that
// its build and CI are unaffected; `scripts/fuzz.sh` builds it with `-sanitize=fuzzer,address` and runs each target.
// The harness logic lives in `Harness/` (and `Loopback/`); `Tests/MSALTests/FuzzHarness` links to `Harness/`, so
// the normal test suite runs the committed corpus and the regression inputs through the same code.
import PackageDescription

/// One executable per target: `Targets/<name>/Entry.swift` defines `LLVMFuzzerTestOneInput`.
let fuzzTargets: [(name: String, harness: String)] = [
    ("cache-json", "FuzzHarness"),
    ("json-reader", "FuzzHarness"),
    ("id-token", "FuzzHarness"),
    ("client-info", "FuzzHarness"),
    ("token-response", "FuzzHarness"),
    ("device-code", "FuzzHarness"),
    ("authorization-response", "FuzzHarness"),
    ("discovery", "FuzzHarness"),
    ("emulator", "FuzzHarness"),
    ("managed-identity", "FuzzHarness"),
    ("certificate-pem", "FuzzHarness"),
    ("pkcs12", "FuzzHarness"),
    ("broker-answer", "FuzzHarness"),
    ("encrypted-cache", "FuzzHarness"),
    ("pasted-redirect", "FuzzHarness"),
    ("www-authenticate", "FuzzHarness"),
    ("azure-cli", "FuzzHarness"),
    ("keychain-item", "FuzzHarness"),
    ("native-auth", "FuzzHarness"),
    ("embedded-webview", "FuzzHarness"),
    ("loopback", "FuzzLoopback"),
]

let package = Package(
    name: "msal-fuzz",
    platforms: [.macOS(.v14)],
    products: fuzzTargets.map { .executable(name: "fuzz-\($0.name)", targets: ["fuzz-\($0.name)"]) },
    dependencies: [
        .package(name: "msal-swift", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
    ],
    targets: [
        // The harnesses of the MSAL and emulator parsers, shared with the test suite.
        .target(
            name: "FuzzHarness",
            dependencies: [
                .product(name: "MSALCore", package: "msal-swift"),
                .product(name: "MSALCertificates", package: "msal-swift"),
                .product(name: "MSALSecureStorage", package: "msal-swift"),
                .product(name: "MSALEmulatorCore", package: "msal-swift"),
                .product(name: "MSALLoopback", package: "msal-swift"),
                .product(name: "MSALHTTPTransport", package: "msal-swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Harness"
        ),
        // The loopback listener's request handling, through an in-memory NIO channel.
        .target(
            name: "FuzzLoopback",
            dependencies: [
                "FuzzHarness",
                .product(name: "MSALLoopback", package: "msal-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Loopback"
        ),
    ] + fuzzTargets.map {
        .executableTarget(name: "fuzz-\($0.name)", dependencies: [.byName(name: $0.harness)], path: "Targets/\($0.name)")
    },
    swiftLanguageModes: [.v6]
)

// Coverage and the address sanitizer, optimized, for the harnesses and the targets (the package's own modules get the
// same through MSAL_FUZZ_INSTRUMENT, which scripts/fuzz.sh sets; dependencies are built as in any debug build). The
// targets define LLVMFuzzerTestOneInput and no main (-parse-as-library); linking with -sanitize=fuzzer brings in
// libFuzzer's main.
let instrumented: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-O", "-gline-tables-only"])]
for target in package.targets {
    if target.type == .executable {
        target.swiftSettings = instrumented + [.unsafeFlags(["-parse-as-library"])]
        target.linkerSettings = [.unsafeFlags(["-sanitize=fuzzer,address"])]
    } else {
        target.swiftSettings = instrumented
    }
}
