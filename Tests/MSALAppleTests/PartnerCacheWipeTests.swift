import Foundation
@testable import MSAL
import MSALCore
import Security
import Testing

/// A sign-out that wipes every account removes the other applications' caches MSAL for iOS/macOS lists on macOS:
/// their login keychain items go, other items stay, and an item the keychain refuses to remove is named.
extension AppleSurfaceTests {
    @Test func thePartnerCachesAreRemovedAndOthersKept() throws {
        // macOS only: the partners' items are in the login (file-based) keychain.
        guard MSALKeychainTokenCacheStorage.dataProtectionByDefault else { return }
        AppleFixture.resetKeychain()
        let keychain = SurfaceKeychain.shared
        let teams = MSALWipeCacheForAllAccountsConfig.partnerLocations["Microsoft Teams"] ?? [:]
        keychain.surfacePlacePassword(attributes: [
            kSecAttrAccount as String: teams["acct"] ?? "", kSecAttrService as String: teams["svce"] ?? "",
            kSecAttrLabel as String: teams["labl"] ?? "",
        ], data: Data("teams".utf8), dataProtection: false)
        keychain.surfacePlacePassword(attributes: [kSecAttrAccount as String: "someone-else", kSecAttrService as String: "kept"],
                                      data: Data("kept".utf8), dataProtection: false)
        let failed = PartnerCacheWipe.remove(MSALWipeCacheForAllAccountsConfig.partnerLocations)
        #expect(failed.isEmpty)
        #expect(keychain.storedItems.map(\.service) == ["kept"])
        // A keychain that refuses: the location is named.
        keychain.failNextCalls(with: [errSecInteractionNotAllowed])
        #expect(PartnerCacheWipe.remove(["Microsoft Teams": teams]) == ["Microsoft Teams"])
    }
}
