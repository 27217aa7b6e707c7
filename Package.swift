// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// `MSAL_APPLE_SURFACE=ios` (or `1`) / `=macos`: build the package against a transcribed stand-in of the Apple SDK
// surface it uses (AppleSurface/, built by scripts/apple-surface.sh), so that every Apple-only file compiles on Linux
// in Swift 6 mode and its logic runs in MSALAppleTests against the stand-in's in-memory behaviour. Only MSAL's own
// targets and MSALAppleTests are kept then. Never set when building an app.
let appleSurface: String? = {
    switch Context.environment["MSAL_APPLE_SURFACE"] {
    case "1", "ios": return "ios"
    case "macos": return "macos"
    default: return nil
    }
}()

// What an app that depends on this package resolves and builds is the library and its own dependencies only
// (swift-crypto, swift-certificates, swift-log, and SwiftNIO for the loopback redirect listener; the Linux transport is
// the system's libcurl, loaded at run time). The rest is behind package traits, which the package manager honours in
// resolution: a trait that is off costs no checkout and no build.
//   Emulator:      the emulator's HTTP(S) server (`MSALEmulator`, on Hummingbird), for an app's own tests.
//   PostgresCache: the token cache shared by server instances in PostgreSQL (`MSALPostgresCache`, on postgres-nio).
//   NIOTransport:  the transport on async-http-client and SwiftNIO (`MSALNIOTransport`), for apps that prefer it to
//                  libcurl.
//   Tools:         the `msal` tool, `msal-emulator`, the examples and the benchmarks, and the traits above. This
//                  repository's own commands pass `--traits Tools` (README, scripts/).
let emulator: TargetDependencyCondition? = .when(traits: ["Emulator"])
let postgres: TargetDependencyCondition? = .when(traits: ["PostgresCache"])
let tools: TargetDependencyCondition? = .when(traits: ["Tools"])
let nioTransport: TargetDependencyCondition? = .when(traits: ["NIOTransport"])

let package = Package(
    name: "msal-swift",
    // As low as MSAL for iOS/macOS 2.14's iOS 16; macOS 13, not 11: the core's clock (request timeouts, retries, the
    // injectable MSALClock) is Swift's Clock and Duration, which macOS 13 brings.
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        // The one import for apps: the core plus this platform's transport, user agent and file cache.
        .library(name: "MSAL", targets: ["MSAL"]),
        // The platform-free core alone (Foundation, swift-crypto, swift-log): bring your own transport and user agent.
        .library(name: "MSALCore", targets: ["MSALCore"]),
        .library(name: "MSALFileStorage", targets: ["MSALFileStorage"]),
        // The token cache encrypted at rest: Secret Service, or an AES-GCM file keyed from the kernel keyring or a
        // key file (Linux), chosen when the application is created.
        .library(name: "MSALSecureStorage", targets: ["MSALSecureStorage"]),
        .library(name: "MSALCertificates", targets: ["MSALCertificates"]),
        .library(name: "MSALSystemBrowser", targets: ["MSALSystemBrowser"]),
        .library(name: "MSALHTTPTransport", targets: ["MSALHTTPTransport"]),
        // The transport on async-http-client and SwiftNIO (trait NIOTransport).
        .library(name: "MSALNIOTransport", targets: ["MSALNIOTransport"]),
        .library(name: "MSALURLSession", targets: ["MSALURLSession"]),
        .library(name: "MSALLoopback", targets: ["MSALLoopback"]),
        .library(name: "MSALLinuxBroker", targets: ["MSALLinuxBroker"]),
        .library(name: "MSALEmulator", targets: ["MSALEmulator"]),
        // The emulator without its server: what it answers to a request, for fuzzing and embedding.
        .library(name: "MSALEmulatorCore", targets: ["MSALEmulatorCore"]),
        // A token cache shared by many instances of a server app (confidential clients) in PostgreSQL.
        .library(name: "MSALPostgresCache", targets: ["MSALPostgresCache"]),
        // Test doubles for apps built on MSAL: a scripted identity provider, a recording transport, the emulator's
        // auto-approve user agent.
        .library(name: "MSALTesting", targets: ["MSALTesting"]),
        .executable(name: "msal-bench", targets: ["MSALBench"]),
        .executable(name: "msal-transport-bench", targets: ["MSALTransportBench"]),
        .executable(name: "msal-postgres-bench", targets: ["MSALPostgresBench"]),
        // The `msal` command-line tool: login, token, accounts, logout, graph (emulator and demo run msal-emulator).
        .executable(name: "msal", targets: ["MSALCommand"]),
        // The identity platform emulator as a program, and the demo on it.
        .executable(name: "msal-emulator", targets: ["MSALEmulatorTool"]),
        // The seeds' sample apps as console programs (Examples/).
        .executable(name: "tutorial-graph", targets: ["MSALExampleTutorialGraph"]),
        .executable(name: "tutorial-b2c", targets: ["MSALExampleTutorialB2C"]),
        .executable(name: "daemon", targets: ["MSALExampleDaemon"]),
        .executable(name: "on-behalf-of", targets: ["MSALExampleOnBehalfOf"]),
        .executable(name: "web-app", targets: ["MSALExampleWebApp"]),
    ],
    traits: [
        .trait(name: "Emulator", description: "The emulator's HTTP(S) server, MSALEmulator (Hummingbird)."),
        .trait(name: "PostgresCache", description: "The PostgreSQL token cache, MSALPostgresCache (postgres-nio)."),
        .trait(name: "NIOTransport", description: "The transport on async-http-client, MSALNIOTransport (SwiftNIO)."),
        .trait(
            name: "Tools",
            description: "The msal tool, msal-emulator, the examples and the benchmarks (swift-argument-parser).",
            enabledTraits: ["Emulator", "PostgresCache", "NIOTransport"]
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        // `swift package generate-documentation --target MSAL` (DocC).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // What the client, the loopback listener and the emulator share without depending on each other: the lock
        // type, base64url, form coding. Foundation only.
        .target(
            name: "MSALSupport",
            // The privacy manifest of the required-reason APIs this target calls (Apple platforms).
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings
        ),
        // Platform-free core: authorities, token protocol, flows, unified token cache model and storage protocol,
        // accounts, errors, the MSAL-named public API. Foundation, swift-crypto and swift-log only.
        .target(
            name: "MSALCore",
            dependencies: [
                "MSALSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The privacy manifest of the required-reason APIs this target calls (Apple platforms).
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings
        ),
        // `import MSAL`: re-exports the core and picks this platform's services when an application is created.
        .target(
            name: "MSAL",
            dependencies: [
                "MSALCore",
                "MSALFileStorage",
                "MSALSecureStorage",
                "MSALCertificates",
                .product(name: "Logging", package: "swift-log"),
                .target(name: "MSALHTTPTransport", condition: .when(platforms: [.linux])),
                .target(name: "MSALSystemBrowser", condition: .when(platforms: [.linux])),
                .target(name: "MSALLinuxBroker", condition: .when(platforms: [.linux])),
                .target(name: "MSALURLSession", condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
            ],
            swiftSettings: swiftSettings
        ),
        // Certificate credentials of confidential clients: PEM key + X.509 chain, signed client assertions.
        .target(
            name: "MSALCertificates",
            dependencies: [
                "MSALCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        // The token cache in a file: 0600, atomic writes, a cross-process lock shared with MSAL for Python (POSIX).
        .target(
            name: "MSALFileStorage",
            dependencies: ["MSALCore"],
            // The privacy manifest of the required-reason APIs this target calls (Apple platforms).
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings
        ),
        // The token cache encrypted at rest (Linux): the Secret Service through libsecret loaded at run time, else an
        // AES-GCM file whose key is in the kernel keyring or a 0600 key file; plaintext only when allowed.
        .target(
            name: "MSALSecureStorage",
            dependencies: [
                "MSALCore",
                "MSALFileStorage",
                "MSALDBus",
                "CMSALKeyctl",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The privacy manifest of the required-reason APIs this target calls (Apple platforms).
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: swiftSettings
        ),
        // The kernel key retention service's system calls (add_key, keyctl), which Swift cannot call variadically.
        .target(name: "CMSALKeyctl"),
        // The system browser with an RFC 8252 loopback redirect: the user agent on Linux (and an option on macOS).
        .target(
            name: "MSALSystemBrowser",
            dependencies: ["MSALCore", "MSALSupport", "MSALLoopback"],
            swiftSettings: swiftSettings
        ),
        // D-Bus through the system's libdbus, loaded at run time: calls and serving, for the broker's client and the
        // emulated broker alike (Foundation only).
        .target(
            name: "MSALDBus",
            swiftSettings: swiftSettings
        ),
        // The Microsoft identity broker on the D-Bus session bus: the transport of the broker port.
        .target(
            name: "MSALLinuxBroker",
            dependencies: ["MSALCore", "MSALSupport", "MSALDBus"],
            swiftSettings: swiftSettings
        ),
        // The HTTP client on the system's libcurl, loaded at run time: no redirects, per-request timeouts,
        // cancellation, proxies and trust roots from the environment; `MSALCurlHTTPClient` adapts it to MSAL's
        // transport protocol.
        .target(
            name: "MSALHTTPTransport",
            dependencies: ["MSALCore", "MSALSupport", "CMSALCurl"],
            swiftSettings: swiftSettings
        ),
        // libcurl's entry points through dlopen, with its variadic option calls made in C.
        .target(name: "CMSALCurl"),
        // The same transport's promises on async-http-client and SwiftNIO (`MSALNIOHTTPClient`), for apps that
        // prefer it (trait NIOTransport).
        .target(
            name: "MSALNIOTransport",
            dependencies: [
                "MSALCore",
                "MSALHTTPTransport",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: nioTransport),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: nioTransport),
            ],
            swiftSettings: swiftSettings
        ),
        // The transport on URLSession (FoundationNetworking on Linux): the default on Apple platforms. Kept out of the
        // core so that Linux programs do not load libcurl and its libraries at start-up.
        .target(
            name: "MSALURLSession",
            dependencies: ["MSALCore"],
            swiftSettings: swiftSettings
        ),
        // RFC 8252 loopback redirect listener and system browser opener on SwiftNIO (no dependency on MSAL).
        .target(
            name: "MSALLoopback",
            dependencies: [
                "MSALSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The partitioned token cache in PostgreSQL: one encrypted row per partition, an in-process L1 kept fresh by
        // LISTEN/NOTIFY, advisory locks for one refresh across instances, expiry-driven eviction.
        .target(
            name: "MSALPostgresCache",
            dependencies: [
                "MSALCore",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `msal-postgres-bench`: processes sharing one PostgreSQL cache; L1/L2/refresh latencies and throughput.
        .executableTarget(
            name: "MSALPostgresBench",
            dependencies: [
                "MSALCore", "MSALPostgresCache", "MSALTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Test doubles on the core's seams (no emulator, no NIO).
        .target(
            name: "MSALTesting",
            dependencies: [
                "MSAL",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Terminal output shared by the command-line programs: escaping of control characters, a stderr log handler.
        .target(
            name: "MSALCommandSupport",
            dependencies: ["MSALCore", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // Local emulator of the Microsoft identity platform v2.0 and of Microsoft Graph `/me`.
        .target(
            name: "MSALEmulatorCore",
            dependencies: [
                "MSALSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The emulator's HTTP(S) server on Hummingbird, re-exporting MSALEmulatorCore.
        .target(
            name: "MSALEmulator",
            dependencies: [
                "MSALSupport",
                "MSALEmulatorCore",
                "MSALDBus",
                .product(name: "Hummingbird", package: "hummingbird", condition: emulator),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: emulator),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: emulator),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `swift run -c release msal-bench silent ...`: cache-hit latency and cache load/save figures.
        .executableTarget(
            name: "MSALBench",
            dependencies: [
                "MSAL",
                "MSALTesting",
                "MSALEmulator",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
            ],
            swiftSettings: swiftSettings
        ),
        // `msal-transport-bench wait|cancel`: wall and CPU time of a request to a silent server, per transport.
        .executableTarget(
            name: "MSALTransportBench",
            dependencies: ["MSAL", "MSALURLSession", "MSALHTTPTransport",
                           .target(name: "MSALNIOTransport", condition: nioTransport)],
            swiftSettings: swiftSettings
        ),
        // `msal`: sign in (browser or device code), tokens, accounts, Graph, the demo and the emulator.
        .executableTarget(
            name: "MSALCommand",
            dependencies: [
                "MSAL",
                "MSALSupport",
                "MSALSystemBrowser",
                "MSALCommandSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `msal-emulator`: the emulator as a program, and `demo` (the Graph tutorial on the in-process emulator).
        .executableTarget(
            name: "MSALEmulatorTool",
            dependencies: [
                "MSAL",
                "MSALEmulator",
                "MSALSamples",
                "MSALTesting",
                "MSALCommandSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The tutorial logic shared by the examples and `msal demo`, and the emulator auto-approve user agent.
        .target(
            name: "MSALSamples",
            dependencies: ["MSAL"],
            path: "Examples/Shared",
            swiftSettings: swiftSettings
        ),
        // The Graph tutorial (seeds: sign in, call Graph /me, sign out) as a console program.
        .executableTarget(
            name: "MSALExampleTutorialGraph",
            dependencies: [
                "MSAL", "MSALEmulator", "MSALSamples", "MSALTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
            ],
            path: "Examples/TutorialGraph",
            swiftSettings: swiftSettings
        ),
        // The Azure AD B2C sample (user flows by policy) as a console program.
        .executableTarget(
            name: "MSALExampleTutorialB2C",
            dependencies: [
                "MSAL", "MSALEmulator", "MSALSamples", "MSALTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
            ],
            path: "Examples/TutorialB2C",
            swiftSettings: swiftSettings
        ),
        // A daemon: client credentials with a certificate, Graph /v1.0/users (on the emulator by default).
        .executableTarget(
            name: "MSALExampleDaemon",
            dependencies: [
                "MSAL", "MSALEmulator", "MSALSamples",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            path: "Examples/Daemon",
            swiftSettings: swiftSettings
        ),
        // A middle-tier web API (Hummingbird): validates its caller's token, calls Graph on the caller's behalf.
        .executableTarget(
            name: "MSALExampleOnBehalfOf",
            dependencies: [
                "MSAL", "MSALEmulator", "MSALSamples", "MSALTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
                .product(name: "Hummingbird", package: "hummingbird", condition: emulator),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/OnBehalfOf",
            swiftSettings: swiftSettings
        ),
        // The tutorial as a web app (Hummingbird): sign-in with the authorization code flow, Graph /me, sign-out.
        .target(
            name: "MSALExampleWebAppKit",
            dependencies: [
                "MSAL", "MSALSamples",
                .product(name: "Hummingbird", package: "hummingbird", condition: emulator),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/WebApp/Kit",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MSALExampleWebApp",
            dependencies: [
                "MSAL", "MSALEmulator", "MSALExampleWebAppKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: tools),
                .product(name: "Hummingbird", package: "hummingbird", condition: emulator),
            ],
            path: "Examples/WebApp/Main",
            swiftSettings: swiftSettings
        ),
        // What every test target shares: a bounded process runner, sockets that do not answer, a log recorder, a
        // no-redirect fetch, bounded waits and gates. Not a product.
        .target(
            name: "MSALTestSupport",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Tests/MSALTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MSALTests",
            dependencies: [
                "MSALTestSupport",
                "MSAL", "MSALCore", "MSALSupport", "MSALFileStorage", "MSALTesting", "MSALEmulator", "MSALEmulatorCore", "MSALSamples",
                "MSALCertificates", "MSALSecureStorage", "MSALLinuxBroker", "MSALDBus",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The encrypted token cache: each protection tier, the chain, the file format's failures. The Secret Service
        // tests need a session bus with a keyring (scripts/with-secret-service.sh); without one they are skipped
        // unless MSAL_SECRET_SERVICE_REQUIRED=1.
        .testTarget(
            name: "MSALSecureStorageTests",
            dependencies: [
                "MSALTestSupport",
                "MSAL", "MSALCore", "MSALFileStorage", "MSALSecureStorage", "CMSALKeyctl",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The `msal` tool through its built binary, and the examples' logic.
        .testTarget(
            name: "MSALCommandTests",
            dependencies: ["MSALTestSupport", "MSAL", "MSALCore", "MSALEmulator", "MSALEmulatorCore", "MSALSamples", "MSALTesting", "MSALCommand"],
            swiftSettings: swiftSettings
        ),
        // The loopback listener against real sockets, and sign-in end to end with a real headless Chromium.
        .testTarget(
            name: "MSALBrowserTests",
            dependencies: ["MSALTestSupport", "MSAL", "MSALCore", "MSALSystemBrowser", "MSALLoopback", "MSALEmulator", "MSALEmulatorCore", "MSALTesting", "MSALExampleWebAppKit"],
            swiftSettings: swiftSettings
        ),
        // The HTTP transports and the redirect policy against real servers on 127.0.0.1.
        .testTarget(
            name: "MSALTransportTests",
            dependencies: [
                "MSALTestSupport",
                "MSAL", "MSALCore", "MSALHTTPTransport", "MSALNIOTransport", "MSALURLSession", "MSALSamples", "MSALEmulator", "MSALEmulatorCore", "MSALTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The PostgreSQL token cache against a real server (scripts/postgres-test-cluster.sh starts one).
        .testTarget(
            name: "MSALPostgresCacheTests",
            dependencies: [
                "MSALTestSupport",
                "MSAL", "MSALCore", "MSALPostgresCache", "MSALTesting",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgres),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MSALEmulatorTests",
            dependencies: [
                "MSALTestSupport",
                "MSALEmulator", "MSALEmulatorCore",
                // Client certificates and signed client assertions made by the tests.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: swiftSettings
        ),
        // Code written for MSAL for iOS/macOS (the seeds' tutorials), compiled in Swift 5 language mode.
        .testTarget(
            name: "MSALSeedCompatibilityTests",
            dependencies: ["MSALTestSupport", "MSAL"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ],
    swiftLanguageModes: [.v6]
)

if let appleSurface {
    let surface = "\(Context.packageDirectory)/.build/apple-surface/\(appleSurface)"
    // A stamp of the surface's sources (scripts/apple-surface.sh): a changed surface changes the flags, so the modules
    // compiled against it are rebuilt.
    let stamp = (Context.environment["MSAL_APPLE_SURFACE_STAMP"] ?? "none").filter { $0.isLetter || $0.isNumber }
    let surfaceFlags = ["-I", surface, "-warnings-as-errors", "-D", "APPLE_SURFACE_\(stamp)"]
    let compile: [SwiftSetting] = swiftSettings + [.unsafeFlags(surfaceFlags)]
    let keep: Set<String> = [
        "MSALSupport", "MSALCore", "MSAL", "MSALCertificates", "MSALFileStorage", "MSALSecureStorage", "CMSALKeyctl",
        "MSALSystemBrowser", "MSALHTTPTransport", "CMSALCurl", "MSALURLSession", "MSALLoopback", "MSALTesting", "MSALTestSupport",
        "MSALEmulator", "MSALEmulatorCore", "MSALLinuxBroker", "MSALDBus",
    ]
    package.targets.removeAll { !keep.contains($0.name) }
    package.products = [.library(name: "MSAL", targets: ["MSAL"])]
    for target in package.targets where target.name == "MSAL" {
        target.swiftSettings = compile
        target.linkerSettings = [.unsafeFlags(["-L", surface, "-lMSALAppleSurface"])]
    }
    // The targets an Apple app links through MSAL see the surface's Darwin, so that their `canImport(Darwin)`
    // branches compile (and run in MSALAppleTests).
    let linkedOnApple: Set<String> = [
        "MSALSupport", "MSALCore", "MSALFileStorage", "MSALSecureStorage", "MSALCertificates", "MSALURLSession",
    ]
    for target in package.targets where linkedOnApple.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(surfaceFlags)]
    }
    package.targets.append(.testTarget(
        name: "MSALAppleTests",
        dependencies: ["MSALTestSupport", "MSAL", "MSALCore", "MSALTesting", "MSALEmulator", "MSALHTTPTransport",
                       .product(name: "Crypto", package: "swift-crypto"),
                       .product(name: "_CryptoExtras", package: "swift-crypto")],
        path: "Tests/MSALAppleTests",
        // Swift Testing declares overlays for UIKit and AppKit that exist only in Apple's SDKs.
        swiftSettings: compile + [.unsafeFlags(["-Xfrontend", "-disable-cross-import-overlays"])]
    ))
}

// `MSAL_FUZZ_INSTRUMENT=1` (set by scripts/fuzz.sh only): the package's own modules are compiled for the libFuzzer
// targets of Fuzz/, with coverage, the address sanitizer and optimization, while the dependencies are built as in any
// debug build. The fuzzer then explores MSAL's parsers (not swift-nio's or BoringSSL's), and the build does not
// instrument and optimize every dependency (most of its time before). Never set when building an app.
if Context.environment["MSAL_FUZZ_INSTRUMENT"] == "1" {
    for target in package.targets where target.type == .regular {
        if target.name.hasPrefix("CMSAL") {
            target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-fsanitize=fuzzer-no-link,address"])]
        } else {
            target.swiftSettings = (target.swiftSettings ?? [])
                + [.unsafeFlags(["-sanitize=fuzzer,address", "-O", "-gline-tables-only"])]
        }
    }
}
