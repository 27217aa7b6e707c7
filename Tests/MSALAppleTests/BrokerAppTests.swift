import Foundation
import MSAL
import MSALTesting
import Security
import Testing
#if canImport(UIKit)
import UIKit
#endif

extension AppleSurfaceTests {
    /// The broker app's glue on Apple platforms: the broker key in the keychain, and (iOS) Microsoft Authenticator
    /// found and opened through the shared application.
    @Suite("Broker app glue") struct BrokerAppTests {
        @Test func theBrokerKeyIsMadeOnceAndKeptInTheAppsGroup() throws {
            AppleFixture.resetKeychain()
            let store = MSALKeychainBrokerKeyStore(keychainSharingGroup: AppleFixture.group)
            let key = try store.brokerKey()
            #expect(key.count == 32)
            #expect(try MSALKeychainBrokerKeyStore(keychainSharingGroup: AppleFixture.group).brokerKey() == key)
            try store.setApplicationToken("app-token", clientId: AppleFixture.client)
            #expect(try store.applicationToken(clientId: AppleFixture.client) == "app-token")
            #expect(try store.applicationToken(clientId: "other") == nil)
            let items = SurfaceKeychain.shared.storedItems.filter { ($0.service ?? "").hasPrefix("com.microsoft.adBroker") }
            #expect(items.count == 2 && items.allSatisfy { $0.accessGroup == AppleFixture.accessGroup })
            // The broker's items are never taken for token cache entries.
            #expect(try MSALKeychainTokenCacheStorage(keychainSharingGroup: AppleFixture.group).read() == nil)
        }

        @Test func withoutTheKeychainEntitlementTheKeyCannotBeKept() throws {
            AppleFixture.resetKeychain(entitled: false)
            #expect(throws: MSALErrorInfo.self) { try MSALKeychainBrokerKeyStore(keychainSharingGroup: AppleFixture.group).brokerKey() }
        }

        #if canImport(UIKit) && !os(watchOS) && !os(tvOS)
        @Test @MainActor func authenticatorIsFoundByBothSchemesAndOpened() async throws {
            SurfaceScreen.resetOpenedURLs()
            SurfaceScreen.openableSchemes = []
            let opener = MSALAuthenticatorAppOpener()
            #expect(!(await opener.canOpenBroker(scheme: "msauthv2")))
            SurfaceScreen.openableSchemes = ["msauthv2", "msauthv3"]
            #expect(await opener.canOpenBroker(scheme: "msauthv2"))
            #expect(await opener.canOpenBroker(scheme: "msauthv3"))
            // The synchronous answer of isCompatibleAADBrokerAvailable: on the main thread the shared application's,
            // from another thread the last one seen (here the schemes are gone since).
            #expect(opener.canOpenBrokerImmediately(scheme: "msauthv3"))
            SurfaceScreen.openableSchemes = []
            let fromAnotherThread = await Task.detached { opener.canOpenBrokerImmediately(scheme: "msauthv2") }.value
            #expect(fromAnotherThread)
            SurfaceScreen.openableSchemes = ["msauthv2", "msauthv3"]
            let request = URL(string: "msauthv2://broker?msg_protocol_ver=3")!
            #expect(await opener.open(request))
            // A universal-link request opens Authenticator only (`universalLinksOnly`), never the browser.
            let universal = URL(string: "https://login.microsoftonline.com/applebroker/msauthv2?msg_protocol_ver=3")!
            #expect(await opener.open(universal))
            #expect(SurfaceScreen.openedURLs == [request, universal])
            #expect(SurfaceScreen.openedUniversalLinksOnly == [false, true])
            SurfaceScreen.openableSchemes = []
        }
        #endif
    }
}
