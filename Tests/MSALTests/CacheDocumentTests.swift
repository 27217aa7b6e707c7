import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Token cache document: MSAL Python format")
struct CacheDocumentFormatTests {
    /// `json.dumps(cache, indent=4)` of the reference §2.4 example, as MSAL for Python writes it.
    static let pythonDocument = """
    {
        "AccessToken": {
            "00000000-0000-0000-66f3-3332eca7ea81.72f988bf-86f1-41af-91ab-2d7cd011db47-login.microsoftonline.com-accesstoken-04b07795-8ddb-461a-bbee-02f9e1bf7b46-72f988bf-86f1-41af-91ab-2d7cd011db47-https://graph.microsoft.com/user.read openid profile": {
                "credential_type": "AccessToken",
                "secret": "AT-SECRET",
                "home_account_id": "00000000-0000-0000-66f3-3332eca7ea81.72f988bf-86f1-41af-91ab-2d7cd011db47",
                "environment": "login.microsoftonline.com",
                "client_id": "04b07795-8ddb-461a-bbee-02f9e1bf7b46",
                "target": "https://graph.microsoft.com/User.Read openid profile",
                "realm": "72f988bf-86f1-41af-91ab-2d7cd011db47",
                "token_type": "Bearer",
                "cached_at": "1700000000",
                "expires_on": "1700003599",
                "extended_expires_on": "1700007199",
                "refresh_on": "1700001800"
            }
        },
        "Account": {
            "00000000-0000-0000-66f3-3332eca7ea81.72f988bf-86f1-41af-91ab-2d7cd011db47-login.microsoftonline.com-72f988bf-86f1-41af-91ab-2d7cd011db47": {
                "home_account_id": "00000000-0000-0000-66f3-3332eca7ea81.72f988bf-86f1-41af-91ab-2d7cd011db47",
                "environment": "login.microsoftonline.com",
                "realm": "72f988bf-86f1-41af-91ab-2d7cd011db47",
                "local_account_id": "00000000-0000-0000-66f3-3332eca7ea81",
                "username": "alice@contoso.example",
                "authority_type": "MSSTS",
                "account_source": "authorization_code"
            }
        },
        "IdToken": {
            "00000000-0000-0000-66f3-3332eca7ea81.72f988bf-86f1-41af-91ab-2d7cd011db47-login.microsoftonline.com-idtoken-04b07795-8ddb-461a-bbee-02f9e1bf7b46-72f988bf-86f1-41af-91ab-2d7cd011db47-": {
                "credential_type": "IdToken",
                "secret": "\(CacheFixtures.idToken)",
                "home_account_id": "00000000-0000-0000-66f3-3332eca7ea81.72f988bf-86f1-41af-91ab-2d7cd011db47",
                "environment": "login.microsoftonline.com",
                "realm": "72f988bf-86f1-41af-91ab-2d7cd011db47",
                "client_id": "04b07795-8ddb-461a-bbee-02f9e1bf7b46"
            }
        },
        "RefreshToken": {
            "00000000-0000-0000-66f3-3332eca7ea81.72f988bf-86f1-41af-91ab-2d7cd011db47-login.microsoftonline.com-refreshtoken-04b07795-8ddb-461a-bbee-02f9e1bf7b46--https://graph.microsoft.com/user.read openid profile": {
                "credential_type": "RefreshToken",
                "secret": "RT-SECRET",
                "home_account_id": "00000000-0000-0000-66f3-3332eca7ea81.72f988bf-86f1-41af-91ab-2d7cd011db47",
                "environment": "login.microsoftonline.com",
                "client_id": "04b07795-8ddb-461a-bbee-02f9e1bf7b46",
                "target": "https://graph.microsoft.com/User.Read openid profile",
                "last_modification_time": "1700000000",
                "family_id": "1"
            }
        },
        "AppMetadata": {
            "appmetadata-login.microsoftonline.com-04b07795-8ddb-461a-bbee-02f9e1bf7b46": {
                "client_id": "04b07795-8ddb-461a-bbee-02f9e1bf7b46",
                "environment": "login.microsoftonline.com",
                "family_id": "1"
            }
        }
    }
    """

    @Test func signInWritesTheReferenceDocument() throws {
        let document = TokenCacheDocument()
        document.saveTokenResponse(CacheFixtures.signInResponse())
        let written = document.serialize()
        let expected = Data(Self.pythonDocument.utf8)
        // Same structure and key strings...
        #expect(CacheFixtures.object(written) == CacheFixtures.object(expected))
        // ...and the same text, field order and section order included.
        #expect(String(decoding: written, as: UTF8.self) == Self.pythonDocument)
    }

    @Test func scopesAreSortedByCodePointIntoTargetAndKey() throws {
        let document = TokenCacheDocument()
        let at = try #require(document.saveTokenResponse(
            CacheFixtures.signInResponse(target: "profile openid https://graph.microsoft.com/User.Read")))
        #expect(at.target == "https://graph.microsoft.com/User.Read openid profile")
        #expect(at.key.hasSuffix("-https://graph.microsoft.com/user.read openid profile"))
    }

    @Test func referenceDocumentRoundTripsUnchanged() throws {
        let document = try TokenCacheDocument.parse(Data(Self.pythonDocument.utf8))
        #expect(document.parseWarnings.isEmpty)
        #expect(String(decoding: document.serialize(), as: UTF8.self) == Self.pythonDocument)
    }

    @Test func appMetadataWithoutFamilyHasNullFamilyId() throws {
        let document = TokenCacheDocument()
        document.saveTokenResponse(CacheFixtures.signInResponse(familyId: nil))
        let object = try #require(CacheFixtures.object(document.serialize()))
        let metadata = object["AppMetadata"]?.objectValue?.values.first?.objectValue
        #expect(metadata?["family_id"] == .null)
        #expect(document.appMetadata(environments: CacheFixtures.envs, clientId: CacheFixtures.clientId)?.familyId == nil)
    }

    @Test func unknownSectionsAndFieldsSurviveARewrite() throws {
        var object = try #require(CacheFixtures.object(Data(Self.pythonDocument.utf8)))
        object["AccountMetadata"] = .object(["x": .array([.number(1), .bool(true), .null, .string("é😀")])])
        var ats = try #require(object["AccessToken"]?.objectValue)
        let atKey = try #require(ats.keys.first)
        var at = try #require(ats[atKey]?.objectValue)
        at["key_id"] = .string("kid-1")
        at["ext_expires_on"] = .string("1700007199")
        ats[atKey] = .object(at)
        object["AccessToken"] = .object(ats)
        let data = try JSONSerialization.data(withJSONObject: JSONValue.object(object).foundationValue)

        let document = try TokenCacheDocument.parse(data)
        // Rewrite the same AT and add another account: unknown fields of the rewritten entry stay.
        document.saveTokenResponse(CacheFixtures.signInResponse(accessToken: "AT-2"))
        document.saveTokenResponse(CacheFixtures.signInResponse(home: "uid2.utid2"))
        let reread = try #require(CacheFixtures.object(document.serialize()))
        #expect(reread["AccountMetadata"] == object["AccountMetadata"])
        let rewritten = reread["AccessToken"]?.objectValue?[atKey]?.objectValue
        #expect(rewritten?["key_id"] == .string("kid-1"))
        #expect(rewritten?["ext_expires_on"] == .string("1700007199"))
        #expect(rewritten?["secret"] == .string("AT-2"))
        #expect(reread["AccessToken"]?.objectValue?.count == 2)
    }

    /// A key twice in a section keeps its last entry, as Python's `json.loads` and Foundation do, wherever the two
    /// entries would be indexed (another account or app, readable or not, a section spelt twice).
    @Test(arguments: [
        // Two readable access tokens of different apps under one key.
        (#"{"AccessToken": {"k": {AT1}, "k": {AT2}}}"#, "AT-2"),
        // Readable, then unreadable (a refresh token in the access-token section).
        (#"{"AccessToken": {"k": {AT1}, "k": {"credential_type": "RefreshToken", "secret": "X"}}}"#, "X"),
        // Unreadable, then readable.
        (#"{"AccessToken": {"k": 1, "k": {AT2}}}"#, "AT-2"),
        // The section spelt twice.
        (#"{"AccessToken": {"k": {AT1}}, "accesstoken": {"k": {AT2}}}"#, "AT-2"),
    ])
    func aDuplicatedKeyKeepsItsLastEntry(template: String, expectedSecret: String) throws {
        func accessToken(_ client: String, _ secret: String) -> String {
            #"{"credential_type": "AccessToken", "secret": "\#(secret)", "home_account_id": "u.t", "#
                + #""environment": "login.microsoftonline.com", "client_id": "\#(client)", "realm": "t", "#
                + #""target": "User.Read", "cached_at": "1700000000", "expires_on": "1700003600"}"#
        }
        let text = template.replacingOccurrences(of: "{AT1}", with: accessToken("app-1", "AT-1"))
            .replacingOccurrences(of: "{AT2}", with: accessToken("app-2", "AT-2"))
        let document = try TokenCacheDocument.parse(Data(text.utf8))
        let written = document.serialize()
        let object = try #require(CacheFixtures.object(written))
        let section = try #require(object["AccessToken"]?.objectValue)
        #expect(section.count == 1)
        #expect(String(decoding: written, as: UTF8.self).components(separatedBy: #""k":"#).count == 2)
        #expect(section["k"]?.objectValue?["secret"] == .string(expectedSecret))
        #expect(document.accessTokenCount == (expectedSecret == "X" ? 0 : 1))
        // Foundation reads the same one entry, and a rewrite is a fixed point.
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        if foundation.count == 1, let entries = foundation["AccessToken"] as? [String: Any],
           let entry = entries["k"] as? [String: Any] {
            #expect(entry["secret"] as? String == expectedSecret)
        }
        #expect(try TokenCacheDocument.parse(written).serialize() == written)
    }

    @Test func descriptionsNeverShowSecrets() throws {
        let document = TokenCacheDocument()
        let at = try #require(document.saveTokenResponse(CacheFixtures.signInResponse()))
        let rt = try #require(document.refreshTokens(
            homeAccountId: CacheFixtures.home, environments: CacheFixtures.envs, clientId: CacheFixtures.clientId).first)
        let idt = try #require(document.idTokens(
            homeAccountId: CacheFixtures.home, environments: CacheFixtures.envs, clientId: CacheFixtures.clientId).first)
        for text in [String(describing: at), String(reflecting: at), String(describing: rt), String(reflecting: rt),
                     String(describing: idt), dumped(at), dumped(rt)] {
            #expect(!text.contains("AT-SECRET") && !text.contains("RT-SECRET") && !text.contains(CacheFixtures.idToken))
        }
    }

    private func dumped(_ value: Any) -> String {
        var out = ""
        dump(value, to: &out)
        return out
    }
}
