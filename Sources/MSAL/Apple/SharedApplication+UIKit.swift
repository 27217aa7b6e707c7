// The shared application, reached without naming `UIApplication.shared`, which is unavailable to code built for an
// app extension (`NS_EXTENSION_UNAVAILABLE_IOS`): so that share extensions and widgets can link MSAL.
#if canImport(UIKit) && !os(watchOS)
import Foundation
import UIKit

@MainActor
enum SharedApplication {
    /// The shared application, looked up at run time as MSAL for iOS/macOS's MSIDAppExtensionUtil does; nil in an app
    /// extension (its bundle ends in `.appex`), which has none.
    static var current: UIApplication? {
        guard !Bundle.main.bundlePath.hasSuffix(".appex") else { return nil }
        return UIApplication.value(forKey: "sharedApplication") as? UIApplication
    }
}
#endif
