import Foundation
import MSALTesting
import Testing
@testable import MSAL
@testable import MSALCore

/// How a cache document is written as keychain items without losing what others wrote, and which window an
/// authentication session is presented over: the pure parts of the Apple platform code, on every platform.
@Suite("Keychain cache sync and presentation anchor")
struct KeychainCacheSyncTests {
    static func item(_ account: String, _ service: String, secret: String = "s") -> KeychainCacheItem {
        KeychainCacheItem(account: account, service: service, generic: nil, type: 2002,
                          value: ["credential_type": .string("RefreshToken"), "secret": .string(secret)])
    }

    @Test("New items are added, changed ones updated, equal ones left alone")
    func addsAndUpdates() {
        let kept = Self.item("a", "same")
        let changed = Self.item("a", "changed", secret: "new")
        let added = Self.item("b", "added")
        let changes = KeychainCacheSync.changes(
            stored: [kept, Self.item("a", "changed", secret: "old")],
            base: [KeychainItemKey(kept), KeychainItemKey(changed)],
            desired: [kept, changed, added])
        #expect(changes.add == [added])
        #expect(changes.update == [changed])
        #expect(changes.delete.isEmpty)
    }

    @Test("Only items this writer read and removed are deleted; items that appeared since the read are kept")
    func deletesOnlyWhatWasRead() {
        let removed = Self.item("a", "removed")
        let appeared = Self.item("other-app", "signed-in-meanwhile")
        let changes = KeychainCacheSync.changes(stored: [removed, appeared], base: [KeychainItemKey(removed)],
                                                desired: [])
        #expect(changes.delete == [KeychainItemKey(removed)])
        #expect(changes.add.isEmpty && changes.update.isEmpty)
    }

    @Test("Writing what is stored changes nothing, and the digest does not depend on order")
    func idempotent() {
        let items = [Self.item("a", "1"), Self.item("b", "2"), Self.item("c", "3")]
        #expect(KeychainCacheSync.changes(stored: items, base: Set(items.map(KeychainItemKey.init)), desired: items).isEmpty)
        #expect(KeychainCacheSync.digest(items) == KeychainCacheSync.digest(items.reversed()))
        #expect(KeychainCacheSync.digest(items) != KeychainCacheSync.digest(Array(items.dropLast())))
    }

    @Test("Items sharing a keychain key: the digest still ignores order, and the last item of a key is the one kept")
    func duplicateKeys() {
        let first = Self.item("a", "same", secret: "1")
        let second = Self.item("a", "same", secret: "2")
        let other = Self.item("b", "other")
        #expect(KeychainCacheSync.digest([first, second, other]) == KeychainCacheSync.digest([other, second, first]))
        #expect(KeychainCacheSync.deduplicated([first, other, second]) == [second, other])
    }

    @Test("A family refresh token's two items round-trip through the document to one entry and back to both items")
    func familyRefreshTokenRoundTrip() throws {
        let entry: [String: JSONValue] = [
            "credential_type": .string("RefreshToken"), "secret": .string("frt"), "home_account_id": .string("h.t"),
            "environment": .string("login.microsoftonline.com"), "client_id": .string("c"), "family_id": .string("1"),
        ]
        let items = KeychainItemLayout.items(section: "RefreshToken", entry: entry)
        #expect(items.map(\.service) == ["refreshtoken-1--", "refreshtoken-c--"])
        let document = KeychainItemLayout.document(from: items)
        let again = KeychainItemLayout.items(fromDocument: document)
        #expect(Set(again.map(\.service)) == Set(items.map(\.service)))
        let stored = try #require(KeychainItemLayout.storedEntry(account: items[0].account, service: items[0].service,
                                                                 generic: items[0].generic, type: items[0].type,
                                                                 data: KeychainItemLayout.valueData(items[0])))
        #expect(stored == items[0])
        #expect(KeychainItemLayout.storedEntry(account: "x", service: "y", generic: nil, type: 0, data: Data("{}".utf8)) == nil)
        #expect(KeychainItemLayout.storedEntry(account: "x", service: "y", generic: nil, type: 2002, data: Data("[1]".utf8)) == nil)
    }

    @Test("The session is presented over the controller's window, else the foreground active scene's key window")
    func anchorChoice() {
        typealias Choice = PresentationAnchorChoice<String>
        let background = Choice.Scene(isForegroundActive: false, keyWindow: "background-key", windows: ["background-key"])
        let active = Choice.Scene(isForegroundActive: true, keyWindow: "active-key", windows: ["first", "active-key"])
        let activeNoKey = Choice.Scene(isForegroundActive: true, keyWindow: nil, windows: ["only"])
        #expect(Choice(controllerWindow: "controller", scenes: [background, active]).anchor == "controller")
        #expect(Choice(controllerWindow: nil, scenes: [background, active]).anchor == "active-key")
        #expect(Choice(controllerWindow: nil, scenes: [activeNoKey, active]).anchor == "active-key")
        #expect(Choice(controllerWindow: nil, scenes: [background, activeNoKey]).anchor == "only")
        #expect(Choice(controllerWindow: nil, scenes: [background]).anchor == nil)
        #expect(Choice(controllerWindow: nil, scenes: []).anchor == nil)
    }
}

/// The user agents a platform does not offer fail before anything is shown.
@Suite("Web view parameters")
struct WebviewParametersTests {
    @Test("Without WebKit an embedded web view type fails with invalid parameter; a custom authenticator is used whatever the type")
    func embeddedWebViewRefused() async throws {
        let provider = MSALScriptedIdentityProvider()
        let app = try makeFakeApp(provider)
        let webview = MSALWebviewParameters()
        webview.webviewType = .wkWebView
        let parameters = MSALInteractiveTokenParameters(scopes: ["User.Read"], webviewParameters: webview)
        let error = await #expect(throws: MSALErrorInfo.self) { try await app.acquireToken(with: parameters) }
        #expect(error?.internalCode == .internalErrorInvalidParameter)
        #expect(provider.requestCount == 0)
        webview.webAuthenticator = MSALScriptedWebAuthenticator(provider: provider)
        #expect(try await !app.acquireToken(with: parameters).accessToken.isEmpty)
    }
}
