import Foundation
import Testing
import MSAL
import MSALTesting
import MSALEmulator
import MSALTestSupport
@testable import MSALCore

/// ADAL's legacy cache as MSAL's common core reads and writes it: the keys (the common core's own test vectors), the
/// archived items and the macOS serialized cache (checked against a second writer and reader, Python's binary
/// property lists: `Tests/python/adal_archive.py`), and users moving from ADAL: a legacy refresh token gives a silent
/// token with no sign-in, `account(forUsername:)` finds the user, a sign-in is written back in ADAL's format.
@Suite("ADAL's legacy cache", .serialized)
struct LegacyADALCacheTests {
    // MARK: Keys

    /// `MSIDLegacyCacheKeyTests.m:49-83`: the service of authority `https://login.microsoftonline.com/common`, client
    /// `client`, resource `resource` (or none), and the iOS account of `test_upn@test_devex.com`, any case.
    @Test func keysAreTheCommonCoresTestVectors() {
        let key = LegacyTokenCacheKey(authority: "https://login.microsoftonline.com/common", resource: "reSOURce",
                                      clientId: "clIENt", userId: "TEst_upn@test_DEVEX.com")
        #expect(key.service == "MSOpenTech.ADAL.1|aHR0cHM6Ly9sb2dpbi5taWNyb3NvZnRvbmxpbmUuY29tL2NvbW1vbg|cmVzb3VyY2U|Y2xpZW50")
        #expect(key.account(forIOS: true) == "dGVzdF91cG5AdGVzdF9kZXZleC5jb20")
        #expect(key.account(forIOS: false) == "test_upn@test_devex.com")
        let multiResource = LegacyTokenCacheKey(authority: "https://login.microsoftonline.com/common", resource: nil,
                                                clientId: "client", userId: "test_upn@test_devex.com")
        #expect(multiResource.service
            == "MSOpenTech.ADAL.1|aHR0cHM6Ly9sb2dpbi5taWNyb3NvZnRvbmxpbmUuY29tL2NvbW1vbg|CC3513A0-0E69-4B4D-97FC-DFB6C91EE132|Y2xpZW50")
        let parts = LegacyTokenCacheKey.components(ofService: multiResource.service)
        #expect(parts?.authority == "https://login.microsoftonline.com/common" && parts?.resource == nil && parts?.clientId == "client")
        #expect(LegacyTokenCacheKey.components(ofService: "MSOpenTech.ADAL.1|%%%|x|y") == nil)
        #expect(LegacyTokenCacheKey.components(ofService: "refreshtoken-client--") == nil)
        #expect(LegacyTokenCacheKey.userId(ofAccount: "dGVzdF91cG5AdGVzdF9kZXZleC5jb20", forIOS: true) == "test_upn@test_devex.com")
    }

    // MARK: Archives

    @Test func theBinaryPropertyListWriterIsReadBackEqual() throws {
        let values: [PropertyListValue] = [
            .null, .bool(true), .integer(0), .integer(255), .integer(65_536), .integer(-1), .integer(Int64.max),
            .real(1.5), .date(-12.25), .data(Data(repeating: 7, count: 300)), .string(""), .string("ascii"),
            .string("ünïcødé ✓"), .string(String(repeating: "x", count: 70_000)), .uid(3), .uid(70_000),
            .array((0..<20).map { .integer(Int64($0)) }),
            .dictionary(["a": .array([.string("b"), .dictionary(["c": .null])]), "d": .real(-0.5)]),
        ]
        for value in values {
            #expect(try BinaryPropertyList.parse(BinaryPropertyList.serialize(value)) == value)
        }
    }

    @Test func anItemArchivedByAnotherWriterIsRead() throws {
        let idToken = Self.adalIdToken(upn: "Adele@Contoso.example", oid: "oid-1", tid: "tid-1")
        guard let data = try Self.peer(["op": "item", "fields": [
            "authority": "https://login.microsoftonline.com/common", "clientId": "client-1", "refreshToken": "rt-secret",
            "idToken": idToken, "accessTokenType": "Bearer", "familyId": "1", "expiresOn": 1_700_000_000.0,
        ]])?["data"] as? String else { return }
        let item = try LegacyTokenCacheItem.decode(try #require(Data(base64Encoded: data)))
        #expect(item.authority == "https://login.microsoftonline.com/common" && item.clientId == "client-1")
        #expect(item.refreshToken == "rt-secret" && item.idToken == idToken && item.familyId == "1" && item.resource == nil)
        #expect(item.expiresOn == 1_700_000_000.0 - 978_307_200.0)
        #expect(item.environment == "login.microsoftonline.com" && item.realm == "common" && item.hasRefreshToken)
        let claims = try #require(item.claims)
        #expect(LegacyUserIdentifier(claims: claims) == LegacyUserIdentifier(claims: ["upn": .string("adele@contoso.example")]))
    }

    @Test func anItemThisLibraryArchivesIsReadByAnotherReader() throws {
        let idToken = Self.adalIdToken(upn: "adele@contoso.example", oid: "oid-1", tid: "tid-1")
        var item = LegacyTokenCacheItem(authority: "https://login.microsoftonline.com/tid-1", clientId: "client-1", resource: nil,
                                        refreshToken: "rt-secret", idToken: idToken, familyId: "1", homeAccountId: "oid-1.tid-1")
        item.cachedAt = 100
        #expect(try LegacyTokenCacheItem.decode(item.encode(forIOS: true)).refreshToken == "rt-secret")
        guard let fields = try Self.peer(["op": "read-item", "data": item.encode(forIOS: true).base64EncodedString()])?["fields"]
            as? [String: Any] else { return }
        #expect(fields["refreshToken"] as? String == "rt-secret")
        #expect(fields["idToken"] as? String == idToken)
        #expect(fields["userInformationClass"] as? String == "ADUserInformation")
        #expect(fields["accessTokenType"] as? String == "Bearer")
        #expect(fields["homeAccountId"] as? String == "oid-1.tid-1")
        #expect((fields["cachedAt"] as? Double).map { abs($0 - 978_307_300) < 0.001 } == true)
        #expect(fields["additionalClient"] as? [String: Any] != nil)
    }

    @Test func hostileArchivesAreTypedErrors() throws {
        let good = LegacyTokenCacheItem(authority: "https://h/t", clientId: "c", resource: nil, refreshToken: "r",
                                        idToken: nil).encode(forIOS: false)
        for length in stride(from: 0, to: good.count, by: 7) {
            #expect(throws: BinaryPropertyList.Failure.self) { try LegacyTokenCacheItem.decode(good.prefix(length)) }
        }
        func archive(_ objects: [PropertyListValue], root: UInt64 = 1) -> Data {
            BinaryPropertyList.serialize(.dictionary(["$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
                                                      "$top": .dictionary(["root": .uid(root)]), "$objects": .array(objects)]))
        }
        let itemClass = PropertyListValue.dictionary(["$classname": .string("ADTokenCacheStoreItem"), "$classes": .array([])])
        let cases: [Data] = [
            Data("not a plist".utf8),
            archive([.string("$null"), .dictionary(["self": .uid(1), "$class": .uid(2)]), itemClass]),   // a cycle
            archive([.string("$null"), .dictionary(["$class": .uid(9)])]),                               // no class
            archive([.string("$null")], root: 5),                                                        // out of range
            archive([.string("$null"), .dictionary(["clientId": .integer(3), "$class": .uid(2)]), itemClass]), // a number
            archive([.string("$null"), .dictionary(["$class": .uid(2)]),
                     .dictionary(["$classname": .string("NSObject"), "$classes": .array([])])]),       // another class
            archive([.string("$null"), .dictionary(["userInformation": .uid(1), "$class": .uid(2)]), itemClass]),
        ]
        for data in cases {
            #expect(throws: BinaryPropertyList.Failure.self) { try LegacyTokenCacheItem.decode(data) }
        }
        // Shared references many times over: bounded, not exponential.
        var objects: [PropertyListValue] = [.string("$null")]
        for level in 0..<40 {
            objects.append(.dictionary(["NS.objects": .array([.uid(UInt64(level + 2)), .uid(UInt64(level + 2))]), "$class": .uid(42)]))
        }
        objects.append(.string("leaf"))
        objects.append(.dictionary(["$classname": .string("NSArray"), "$classes": .array([])]))
        #expect(throws: BinaryPropertyList.Failure.self) { try KeyedArchive.decode(archive(objects)) }
    }

    @Test func theMacOSSerializedCacheOfAnotherWriterIsReadAndWrittenBack() throws {
        let key = LegacyTokenCacheKey(authority: "https://login.microsoftonline.com/common", resource: nil, clientId: "client-1",
                                      userId: "adele@contoso.example")
        guard let data = try Self.peer(["op": "mac-cache", "users": ["adele@contoso.example": [[
            "service": key.service, "fields": ["authority": "https://login.microsoftonline.com/common", "clientId": "client-1",
                                               "refreshToken": "rt-mac"]]]]])?["data"] as? String else { return }
        let provider = try MSALSerializedADALCacheProvider(delegate: Recorder())
        try provider.deserialize(try #require(Data(base64Encoded: data)))
        let items = try provider.legacyItems()
        #expect(items.count == 1 && items.first?.account == "adele@contoso.example" && items.first?.service == key.service)
        let archived = try #require(items.first?.data)
        #expect(try LegacyTokenCacheItem.decode(archived).refreshToken == "rt-mac")
        let written = try provider.serializeData()
        let read = try Self.peer(["op": "read-mac-cache", "data": written.base64EncodedString()])
        let users = read?["users"] as? [String: [[String: Any]]]
        #expect((users?["adele@contoso.example"]?.first?["fields"] as? [String: Any])?["refreshToken"] as? String == "rt-mac")
        #expect(read?["version"] as? Double == 1.0)
        // A later version, or data that is not an ADAL cache, is refused and leaves the cache as it was.
        let later = try Self.peer(["op": "mac-cache", "users": [String: Any](), "version": 2.0])?["data"] as? String
        #expect(throws: MSALErrorInfo.self) { try provider.deserialize(Data(base64Encoded: later ?? "") ?? Data()) }
        #expect(throws: MSALErrorInfo.self) { try provider.deserialize(Data("{}".utf8)) }
        #expect(try provider.legacyItems().count == 1)
    }

    // MARK: Moving from ADAL, against the emulator

    /// A user ADAL signed in (its refresh token in a legacy item of the keychain group, as on iOS) is found by user
    /// name and gets a silent token with no sign-in; the tokens are then in the unified cache, and the next silent
    /// call is a cache hit.
    @Test func anADALUserGetsASilentTokenWithoutSigningIn() async throws {
        let emulator = try await ProofOfPossessionTests.emulator()
        defer { Task { await emulator.stop() } }
        let (refreshToken, account) = try await Self.signedInElsewhere(emulator)
        let (oid, tid) = try #require(Self.split(account))
        let store = MemoryLegacyStore()
        let item = LegacyTokenCacheItem(authority: "\(Self.origin(emulator))/common", clientId: emulator.clientId, resource: nil,
                                        refreshToken: refreshToken,
                                        idToken: Self.adalIdToken(upn: emulator.username, oid: oid, tid: tid))
        let key = LegacyTokenCacheKey(authority: item.authority!, resource: nil, clientId: emulator.clientId, userId: emulator.username)
        try store.saveLegacyItem(LegacyStoredItem(account: key.account(forIOS: true), service: key.service,
                                                  data: item.encode(forIOS: true)))
        let http = MSALRecordingHTTPClient(forwardingTo: MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:]))
        let app = try Self.app(emulator, http: http, legacy: store, writes: false)

        let found = try app.account(forUsername: emulator.username.uppercased())
        #expect(found.identifier == account && found.username?.lowercased() == emulator.username.lowercased())
        let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: found))
        #expect(!silent.accessToken.isEmpty && silent.account.identifier == account)
        #expect(http.tokenRequests == 1)
        // Upgraded: the account is in the unified cache, and the next call is answered from it.
        #expect(try app.allAccounts().count == 1)
        _ = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: silent.account))
        #expect(http.tokenRequests == 1)
        // Not written back by default (MSAL for iOS/macOS only reads the legacy items).
        #expect(store.items.count == 1)
        // Removing the account removes its legacy items too.
        try app.remove(silent.account)
        #expect(store.items.isEmpty)
        #expect(throws: MSALErrorInfo.self) { try app.account(forUsername: emulator.username) }
    }

    /// With ``MSALCacheConfig/writesLegacyADALRefreshTokens`` a sign-in's refresh token is written as an ADAL item that
    /// another reader of the format reads, keyed as ADAL keys it.
    @Test func aSignInIsWrittenInADALsFormatWhenAsked() async throws {
        let emulator = try await ProofOfPossessionTests.emulator()
        defer { Task { await emulator.stop() } }
        let store = MemoryLegacyStore()
        let storage = MSALInMemoryTokenCacheStorage()
        let http = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        let app = try Self.app(emulator, http: http, legacy: store, writes: true, storage: storage)
        let result = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"],
                                                                                     webviewParameters: MSALWebviewParameters()))
        let unifiedRefreshToken = try #require(try Self.refreshToken(in: storage))
        let rawIdToken = try #require(result.idToken)
        let userId = try #require(LegacyUserIdentifier(writing: try IdToken(raw: rawIdToken).claims)).userId
        let stored = store.items.filter { $0.account == Base64URL.encode(Data(userId.utf8)) }
        #expect(!stored.isEmpty)
        for item in stored {
            let parts = try #require(LegacyTokenCacheKey.components(ofService: item.service))
            #expect(parts.resource == nil && [emulator.clientId, "foci-1"].contains(parts.clientId))
            guard let fields = try Self.peer(["op": "read-item", "data": item.data.base64EncodedString()])?["fields"]
                as? [String: Any] else { continue }
            #expect(fields["refreshToken"] as? String == unifiedRefreshToken)
            #expect(fields["homeAccountId"] as? String == result.account.identifier)
        }
    }

    /// macOS: the app's serialized ADAL cache (through its delegate) gives the ADAL user a silent token, and a
    /// sign-in is seeded into it, between the delegate's will and did calls.
    @Test func theSerializedADALCacheIsReadAndSeeded() async throws {
        let emulator = try await ProofOfPossessionTests.emulator()
        defer { Task { await emulator.stop() } }
        let (refreshToken, account) = try await Self.signedInElsewhere(emulator)
        let (oid, tid) = try #require(Self.split(account))
        let authority = "\(Self.origin(emulator))/common"
        let key = LegacyTokenCacheKey(authority: authority, resource: nil, clientId: emulator.clientId, userId: emulator.username)
        guard let data = try Self.peer(["op": "mac-cache", "users": [key.userId: [[
            "service": key.service, "fields": ["authority": authority, "clientId": emulator.clientId, "refreshToken": refreshToken,
                                               "idToken": Self.adalIdToken(upn: emulator.username, oid: oid, tid: tid)]]]]])?["data"]
            as? String else { return }
        let recorder = Recorder()
        recorder.stored = Data(base64Encoded: data)
        let provider = try MSALSerializedADALCacheProvider(delegate: recorder)
        #expect(provider.delegate === recorder)
        let http = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAADAuthority(url: emulator.authorityURL))
        config.cacheConfig.storage = MSALInMemoryTokenCacheStorage()
        config.cacheConfig.serializedADALCache = provider
        let app = try MSALPublicClientApplication(configuration: config, platform: MSALPlatformServices(
            httpClient: http, webAuthenticator: EmulatorAutoApproveAuthenticator(httpClient: http)))

        let found = try app.account(forUsername: emulator.username)
        let silent = try await app.acquireTokenSilent(with: MSALSilentTokenParameters(scopes: ["User.Read"], account: found))
        #expect(silent.account.identifier == account)
        #expect(recorder.calls.first == "willAccess" && recorder.calls.contains("didWrite"))
        // The refresh token the silent call got is seeded into ADAL's cache, which another reader sees.
        let seededData = try #require(recorder.stored)
        guard let read = try Self.peer(["op": "read-mac-cache", "data": seededData.base64EncodedString()]) else { return }
        let items = (read["users"] as? [String: [[String: Any]]])?[key.userId] ?? []
        let seeded = items.compactMap { ($0["fields"] as? [String: Any])?["refreshToken"] as? String }
        #expect(seeded.contains { $0 != refreshToken }, "\(items.count) items")
    }

    // MARK: Support

    /// A sign-in through another application of the same client id (the ADAL app): its refresh token and account.
    static func signedInElsewhere(_ emulator: IdentityEmulator) async throws -> (refreshToken: String, account: String) {
        let storage = MSALInMemoryTokenCacheStorage()
        let http = MSALCurlHTTPClient(additionalTrustRootsPEM: [emulator.caCertificatePEM], environment: [:])
        let app = try app(emulator, http: http, legacy: nil, writes: false, storage: storage)
        let result = try await app.acquireToken(with: MSALInteractiveTokenParameters(scopes: ["User.Read"],
                                                                                     webviewParameters: MSALWebviewParameters()))
        let refreshToken = try Self.refreshToken(in: storage)
        return (try #require(refreshToken), try #require(result.account.identifier))
    }

    static func app(_ emulator: IdentityEmulator, http: any MSALHTTPClient, legacy: MemoryLegacyStore?, writes: Bool,
                    storage: MSALInMemoryTokenCacheStorage = MSALInMemoryTokenCacheStorage()) throws -> MSALPublicClientApplication {
        let config = MSALPublicClientApplicationConfig(clientId: emulator.clientId, redirectUri: "http://localhost",
                                                       authority: try MSALAADAuthority(url: emulator.authorityURL))
        config.cacheConfig.writesLegacyADALRefreshTokens = writes
        var platform = MSALPlatformServices(httpClient: http, webAuthenticator: EmulatorAutoApproveAuthenticator(httpClient: http),
                                            cacheStorage: { storage })
        if let legacy {
            platform.legacyTokenCache = { _, writes in LegacyTokenCache(store: legacy, forIOS: true, writesRefreshTokens: writes) }
        }
        return try MSALPublicClientApplication(configuration: config, platform: platform)
    }

    static func refreshToken(in storage: MSALInMemoryTokenCacheStorage) throws -> String? {
        guard let data = try storage.read()?.data,
              let document = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let tokens = document["RefreshToken"] as? [String: [String: Any]] else { return nil }
        return tokens.values.compactMap { $0["secret"] as? String }.first
    }

    static func origin(_ emulator: IdentityEmulator) -> String {
        let url = emulator.authorityURL
        return "\(url.scheme!)://\(url.host!)" + (url.port.map { ":\($0)" } ?? "")
    }

    static func split(_ homeAccountId: String) -> (String, String)? {
        let parts = homeAccountId.split(separator: ".", maxSplits: 1).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    /// An id token as ADAL kept it: the v1 claims (`upn`, `oid`, `tid`), unsigned (ADAL's cache never checks it).
    static func adalIdToken(upn: String, oid: String, tid: String) -> String {
        let header = Base64URL.encode(Data(#"{"typ":"JWT","alg":"none"}"#.utf8))
        let claims: [String: Any] = ["aud": "client", "iss": "https://sts.windows.net/\(tid)/", "oid": oid, "tid": tid,
                                     "upn": upn, "unique_name": upn, "name": "Adele", "ver": "1.0"]
        let payload = Base64URL.encode(try! JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        return "\(header).\(payload)."
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("python/adal_archive.py").path

    /// Runs the other writer and reader; nil where Python is not installed (an issue when MSAL_INTEROP_REQUIRED=1).
    static func peer(_ command: [String: Any]) throws -> [String: Any]? {
        guard let python = InteropTests.python else {
            if InteropTests.required { Issue.record("The ADAL archive peer needs Python (.venv).") }
            return nil
        }
        let result = try ProcessRunner.runSynchronously(URL(fileURLWithPath: python), [script],
                                                        stdin: try JSONSerialization.data(withJSONObject: command), timeout: 60)
        guard result.status == 0, !result.timedOut,
              let output = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            Issue.record("The ADAL archive peer failed: \(result.stderr)")
            return nil
        }
        return output
    }

    /// A delegate that keeps the serialized cache in memory, as an app keeps it in a file.
    final class Recorder: MSALSerializedADALCacheProviderDelegate, @unchecked Sendable {
        var stored: Data?
        var calls: [String] = []
        func willAccessCache(_ cache: MSALSerializedADALCacheProvider) { calls.append("willAccess"); load(cache) }
        func didAccessCache(_ cache: MSALSerializedADALCacheProvider) { calls.append("didAccess") }
        func willWriteCache(_ cache: MSALSerializedADALCacheProvider) { calls.append("willWrite"); load(cache) }
        func didWriteCache(_ cache: MSALSerializedADALCacheProvider) {
            calls.append("didWrite")
            stored = try? cache.serializeData()
        }
        private func load(_ cache: MSALSerializedADALCacheProvider) {
            if let stored { try? cache.deserialize(stored) }
        }
    }
}

/// ADAL's items of a keychain group, in memory (the Linux test double of the iOS keychain).
final class MemoryLegacyStore: LegacyTokenCacheStore, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [LegacyStoredItem] = []

    var items: [LegacyStoredItem] { lock.withLock { stored } }

    func legacyItems() throws -> [LegacyStoredItem] { items }

    func saveLegacyItem(_ item: LegacyStoredItem) throws {
        lock.withLock {
            stored.removeAll { $0.account == item.account && $0.service == item.service }
            stored.append(item)
        }
    }

    func removeLegacyItem(account: String, service: String) throws {
        lock.withLock { stored.removeAll { $0.account == account && $0.service == service } }
    }
}
