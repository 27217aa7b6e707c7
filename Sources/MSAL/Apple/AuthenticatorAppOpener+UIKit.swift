// Microsoft Authenticator on iOS, reached through the shared application: `canOpenURL(_:)` for `msauthv2://broker`
// and `msauthv3://broker` (which the app declares in `LSApplicationQueriesSchemes`), and `open(_:options:)` for the
// request. Not in app extensions, which have no shared application.
#if canImport(UIKit) && !os(watchOS) && !os(tvOS)
import Foundation
import UIKit

/// Opens Microsoft Authenticator's request URL with the shared application.
public struct MSALAuthenticatorAppOpener: MSALBrokerAppOpener {
    /// The opener of the shared application.
    public init() {}

    public func canOpenBroker(scheme: String) async -> Bool {
        guard let url = URL(string: "\(scheme)://broker") else { return false }
        let installed = await MainActor.run { SharedApplication.current?.canOpenURL(url) ?? false }
        Self.lastAnswers.withLock { $0[scheme] = installed }
        return installed
    }

    /// The shared application's answer on the main thread; on another thread the last answer this process got (the
    /// main thread cannot be waited for safely from any thread), false before any.
    public func canOpenBrokerImmediately(scheme: String) -> Bool {
        guard Thread.isMainThread, let url = URL(string: "\(scheme)://broker") else {
            return Self.lastAnswers.withLock { $0[scheme] ?? false }
        }
        let installed = MainActor.assumeIsolated { SharedApplication.current?.canOpenURL(url) ?? false }
        Self.lastAnswers.withLock { $0[scheme] = installed }
        return installed
    }

    /// The last answer for each scheme.
    private static let lastAnswers = LockedBox<[String: Bool]>([:])

    public func open(_ url: URL) async -> Bool {
        await withCheckedContinuation { continuation in
            Task { @MainActor in
                guard let application = SharedApplication.current else { return continuation.resume(returning: false) }
                // A universal link opens Authenticator only, never the browser (MSAL for iOS/macOS's option too).
                let options: [UIApplication.OpenExternalURLOptionsKey: Any] =
                    url.scheme?.lowercased() == "https" ? [.universalLinksOnly: true] : [:]
                application.open(url, options: options) { opened in continuation.resume(returning: opened) }
            }
        }
    }
}
#endif
