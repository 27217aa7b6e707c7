// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "msal-swift",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "MSAL", targets: ["MSAL"]),
        .library(name: "MSALEmulator", targets: ["MSALEmulator"]),
        .library(name: "MSALLoopback", targets: ["MSALLoopback"]),
        .executable(name: "msal-bench", targets: ["MSALBench"]),
        // Emulator branch: the `msal` command-line tool (subcommand `emulator`; others added later).
        .executable(name: "msal", targets: ["MSALCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        // Platform-free core: authorities, token protocol, unified token cache, accounts, errors, flows.
        .target(
            name: "MSAL",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                "MSALLoopback",
            ],
            swiftSettings: swiftSettings
        ),
        // RFC 8252 loopback redirect listener and system browser opener (no dependency on MSAL).
        .target(
            name: "MSALLoopback",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Local emulator of the Microsoft identity platform v2.0 and of Microsoft Graph `/me`.
        .target(
            name: "MSALEmulator",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `swift run -c release msal-bench silent ...`: cache-hit latency and cache load/save figures.
        .executableTarget(
            name: "MSALBench",
            dependencies: [
                "MSAL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Emulator branch: `msal` root command; `msal emulator` serves the identity platform emulator.
        .executableTarget(
            name: "MSALCommand",
            dependencies: [
                "MSALEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MSALTests",
            dependencies: ["MSAL", "MSALEmulator"],
            swiftSettings: swiftSettings
        ),
        // The loopback listener against real sockets, and sign-in end to end with a real headless Chromium.
        .testTarget(
            name: "MSALBrowserTests",
            dependencies: ["MSAL", "MSALLoopback", "MSALEmulator"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MSALEmulatorTests",
            dependencies: ["MSALEmulator"],
            swiftSettings: swiftSettings
        ),
        // Code written for MSAL for iOS/macOS (the seeds' tutorials), compiled in Swift 5 language mode.
        .testTarget(
            name: "MSALSeedCompatibilityTests",
            dependencies: ["MSAL"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ],
    swiftLanguageModes: [.v6]
)
