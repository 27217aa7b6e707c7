import Foundation
import Testing
@testable import MSALCore

/// The legacy shared-accounts list (``MSALLegacySharedAccountsProvider``'s format), with the entries of MSAL for
/// iOS/macOS's own tests (`MSALLegacySharedAccountTestUtil.m:87-115`).
@Suite("Legacy shared accounts")
struct LegacySharedAccountsTests {
    static var adal: [String: Any] { [
        "authEndpointUrl": "https://login.windows.net/common/oauth2/authorize", "id": "A1", "environment": "PROD",
        "oid": "9f4880d8-80ba-4c40-97bc-f7a23c703084", "originAppId": "com.myapp.app", "tenantDisplayName": "", "type": "ADAL",
        "displayName": "myDisplayName.contoso.user", "tenantId": "f645ad92-e38d-4d1a-b510-d1b09a74a8ca", "username": "user@contoso.com",
    ] }
    static var msa: [String: Any] { [
        "cid": "40c03bac188d0d10", "email": "user@outlook.com", "id": "M1", "originAppId": "com.myapp.app", "type": "MSA",
        "displayName": "MyDisplayName", "additionalProperties": ["myprop1": "myprop2"], "additionalfield1": "additionalvalue1",
    ] }

    static func list(_ entries: [[String: Any]], timestamp: Double) throws -> LegacySharedAccounts.List {
        var object: [String: Any] = ["lastWriteTimestamp": timestamp]
        for entry in entries { object[entry["id"] as? String ?? UUID().uuidString] = entry }
        return try #require(LegacySharedAccounts.List(try JSONSerialization.data(withJSONObject: object)))
    }

    static func everyAccount() -> MSALAccountEnumerationParameters {
        let parameters = MSALAccountEnumerationParameters(identifier: nil)
        parameters.returnOnlySignedInAccounts = false
        return parameters
    }

    @Test func theTestEntriesAreReadAsMSALReadsThem() throws {
        let accounts = LegacySharedAccounts.accounts([3: try Self.list([Self.adal, Self.msa], timestamp: 10)],
                                                     parameters: Self.everyAccount(), bundleId: "com.example.app")
        let work = try #require(accounts.first { $0.type == "ADAL" })
        #expect(work.identifier == "9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
        #expect(work.environment == "login.windows.net" && work.username == "user@contoso.com")
        #expect(work.accountClaims?["name"] as? String == "myDisplayName.contoso.user")
        let personal = try #require(accounts.first { $0.type == "MSA" })
        #expect(personal.identifier == "00000000-0000-0000-40c0-3bac188d0d10.9188040d-6c67-4c5b-b112-36a304b66dad")
        #expect(personal.username == "user@outlook.com")
        #expect(LegacySharedAccounts.uid(fromCID: "xyz") == nil && LegacySharedAccounts.uid(fromCID: "12345678901234567") == nil)
        // An entry without type or id, of another type, or an ADAL one without its authority is skipped.
        var broken = Self.adal
        broken["authEndpointUrl"] = nil
        let skipped = LegacySharedAccounts.accounts([3: try Self.list([broken, ["id": "X", "type": "Other"], ["type": "ADAL"]], timestamp: 1)],
                                                    parameters: Self.everyAccount(), bundleId: "b")
        #expect(skipped.isEmpty)
    }

    @Test func filtersAndSignInStatusAreMSALs() throws {
        var signedOut = Self.adal
        signedOut["signInStatus"] = ["com.example.app": "SignedOut", "com.other": "SignedOut"]
        var elsewhere = Self.msa
        elsewhere["signInStatus"] = ["com.other": "SignedIn"]
        let lists = [3: try Self.list([signedOut, elsewhere], timestamp: 10)]
        // Only signed in for this app (the default): none; any app signed in: the MSA one.
        #expect(LegacySharedAccounts.accounts(lists, parameters: MSALAccountEnumerationParameters(identifier: nil), bundleId: "com.example.app").isEmpty)
        #expect(LegacySharedAccounts.accounts(lists, parameters: Self.everyAccount(), bundleId: "com.example.app").map(\.type) == ["MSA"])
        let byProfile = MSALAccountEnumerationParameters(tenantProfileIdentifier: "00000000-0000-0000-40c0-3bac188d0d10")
        byProfile.returnOnlySignedInAccounts = false
        #expect(LegacySharedAccounts.accounts(lists, parameters: byProfile, bundleId: "b").isEmpty)
    }

    @Test func olderVersionsAreReadOnlyWhenWrittenLater() throws {
        var other = Self.adal
        other["id"] = "A2"
        other["oid"] = "00000000-0000-0000-0000-00000000000a"
        let newestFirst = [3: try Self.list([Self.adal], timestamp: 20), 2: try Self.list([other], timestamp: 10)]
        #expect(LegacySharedAccounts.accounts(newestFirst, parameters: Self.everyAccount(), bundleId: "b").count == 1)
        let olderWrittenLater = [3: try Self.list([Self.adal], timestamp: 10), 2: try Self.list([other], timestamp: 20)]
        #expect(LegacySharedAccounts.accounts(olderWrittenLater, parameters: Self.everyAccount(), bundleId: "b").count == 2)
    }

    struct Account: MSALAccountProtocol {
        var username: String?
        var identifier: String?
        var environment: String
        var accountClaims: [String: Any]? { nil }
    }

    @Test func signInsAndRemovalsAreRecordedAsMSALRecordsThem() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let account = Account(username: "new@contoso.com", identifier: "oid-new.tid-home", environment: "login.microsoftonline.com")
        let claims: [String: Any] = ["oid": "oid-new", "tid": "tid-home", "name": "New"]
        let created = LegacySharedAccounts.updated(LegacySharedAccounts.List(), version: 3, account: account, claims: claims,
                                                   bundleId: "com.example.app", appName: "Example", now: now, newId: { "N1" })
        let entry = try #require(created.entries["N1"])
        #expect(entry["authEndpointUrl"]?.stringValue == "https://login.microsoftonline.com/common")
        #expect(entry["signInStatus"]?.objectValue?["com.example.app"]?.stringValue == "SignedIn")
        #expect(entry["originAppId"]?.stringValue == "com.example.app" && entry["environment"]?.stringValue == "PROD")
        #expect(entry["additionalProperties"]?.objectValue?["home_account_id"]?.stringValue == "oid-new.tid-home")
        // A guest profile's entry names its tenant; version 1 is never changed.
        let guest = LegacySharedAccounts.updated(LegacySharedAccounts.List(), version: 2, account: account,
                                                 claims: ["oid": "oid-new", "tid": "guest_utid"], bundleId: "b", appName: "E", now: now,
                                                 newId: { "G1" })
        #expect(guest.entries["G1"]?["authEndpointUrl"]?.stringValue == "https://login.microsoftonline.com/guest_utid")
        #expect(LegacySharedAccounts.updated(LegacySharedAccounts.List(), version: 1, account: account, claims: claims,
                                             bundleId: "b", appName: "E", now: now, newId: { "X" }).entries.isEmpty)
        // Signing out marks the entry for this app; wiping deletes it.
        let signedOut = LegacySharedAccounts.removed(created, version: 3, objectIds: ["OID-NEW"], wipe: false,
                                                     bundleId: "com.example.app", appName: "Example", now: now)
        #expect(signedOut.entries["N1"]?["signInStatus"]?.objectValue?["com.example.app"]?.stringValue == "SignedOut")
        #expect(signedOut.entries["N1"]?["additionalProperties"]?.objectValue?["updatedAt"]?.stringValue == "2023-11-14T22:13:20+0000")
        #expect(LegacySharedAccounts.removed(created, version: 3, objectIds: ["oid-new"], wipe: true, bundleId: "b",
                                             appName: "E", now: now).entries.isEmpty)
        // Written back, the list keeps its entries and the new timestamp.
        let again = try #require(LegacySharedAccounts.List(created.data(timestamp: 42)))
        #expect(again.timestamp == 42 && again.entries == created.entries)
    }
}
