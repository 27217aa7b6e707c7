// `import MSAL` is the one import an app needs: the platform-free core, the file token cache and, per platform,
// the transport and user agent that MSAL picks when an application is created. The platform conditions mirror
// those of the target's dependencies in Package.swift (`canImport` would also see modules built for other targets).
// Foundation too, as MSAL for iOS/macOS's `import MSAL` brings it: `URL`, `Data`, `NSError`. Not FoundationNetworking
// on Linux (`URLRequest`, `URLSession`): it loads libcurl and its libraries when a program starts, where MSAL's own
// transport loads libcurl only at its first request; code that calls an API with URLSession imports it
// (`#if canImport(FoundationNetworking)`).
@_exported import Foundation
@_exported import MSALCore
@_exported import MSALFileStorage
@_exported import MSALSecureStorage
@_exported import MSALCertificates
#if os(Linux)
@_exported import MSALHTTPTransport
@_exported import MSALSystemBrowser
@_exported import MSALLinuxBroker
#elseif canImport(Darwin)
@_exported import MSALURLSession
#endif
