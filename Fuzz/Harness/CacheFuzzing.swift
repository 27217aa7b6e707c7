import Foundation
@testable import MSALCore

/// The unified token cache document: whatever another SDK (or a broken disk) left in the cache file.
enum CacheFuzzing {
    /// Parses `data` as a cache document. When it is accepted:
    /// - its serialization parses again, and serializing that gives the same bytes (a rewrite is a fixed point);
    /// - if Foundation could read the input, it can read the rewrite (other SDKs can still read the file);
    /// - the account and token look-ups run, a sign-in's response can be saved into it and an account removed,
    ///   and the result still parses.
    static func cacheDocument(_ data: Data) throws {
        guard let document = try fuzzExpectingTypedErrors("TokenCacheDocument.parse", { try TokenCacheDocument.parse(data) })
        else { return }
        let first = document.serialize()
        let again: TokenCacheDocument
        do {
            again = try TokenCacheDocument.parse(first)
        } catch {
            throw FuzzFailure("the serialization of an accepted document does not parse: \(error)")
        }
        let second = again.serialize()
        try fuzzCheck(first == second, "serialize(parse(serialize(parse(x)))) differs from serialize(parse(x))")
        if (try? JSONSerialization.jsonObject(with: data, options: [])) is [String: Any] {
            try fuzzCheck((try? JSONSerialization.jsonObject(with: first, options: [])) is [String: Any],
                          "a document Foundation reads is rewritten into one it cannot read")
        }

        let accounts = document.accounts(environments: nil)
        for account in accounts.prefix(8) {
            let environments = [account.environment]
            _ = document.refreshTokens(homeAccountId: account.homeAccountId, environments: environments,
                                       clientId: FuzzFixtures.clientId)
            _ = document.idTokens(homeAccountId: account.homeAccountId, environments: environments,
                                  clientId: FuzzFixtures.clientId)
            _ = document.appMetadata(environments: environments, clientId: FuzzFixtures.clientId)
        }
        _ = document.saveTokenResponse(signInResponse())
        // Proof-of-possession tokens (their own section): a lookup over whatever the file holds there, a save.
        let response = signInResponse()
        _ = document.findPoPAccessToken(homeAccountId: response.homeAccountId, environments: [response.environment],
                                        clientId: FuzzFixtures.clientId, realm: response.realm, scopes: ["User.Read"],
                                        keyId: "fuzz-key")
        _ = document.findPoPAccessToken(homeAccountId: response.homeAccountId, environments: [response.environment],
                                        clientId: FuzzFixtures.clientId, realm: response.realm, scopes: ["User.Read"],
                                        keyId: "kid1", assertionHash: "hash1")
        document.savePoPAccessToken(PoPAccessToken(response, keyId: "fuzz-key", secret: "pop-secret"))
        var onBehalfOf = PoPAccessToken(response, keyId: "fuzz-key", secret: "obo-pop-secret")
        onBehalfOf.userAssertionHash = "hash1"
        document.savePoPAccessToken(onBehalfOf)
        if let account = accounts.first {
            document.removeAccount(homeAccountId: account.homeAccountId, environments: [account.environment],
                                   clientId: FuzzFixtures.clientId, familyId: "1")
        }
        let changed = document.serialize()
        do {
            _ = try TokenCacheDocument.parse(changed)
        } catch {
            throw FuzzFailure("the document after a save and a removal does not parse: \(error)")
        }
    }

    /// The cache document one sign-in writes (a seed shape for the JSON tests).
    static func signInCacheDocument() -> Data {
        let document = TokenCacheDocument()
        _ = document.saveTokenResponse(signInResponse())
        return document.serialize()
    }

    /// A sign-in's cache write, with the values most cache tests use (so that it meets fuzzed entries).
    static func signInResponse() -> CacheTokenResponse {
        let home = "00000000-0000-0000-66f3-3332eca7ea81.\(FuzzFixtures.tenant)"
        let now = FuzzFixtures.now
        return CacheTokenResponse(
            homeAccountId: home, environment: "login.microsoftonline.com", clientId: FuzzFixtures.clientId,
            realm: FuzzFixtures.tenant, target: "https://graph.microsoft.com/User.Read openid profile",
            accessToken: "AT", cachedAt: now, expiresOn: now + 3599, extendedExpiresOn: now + 7199,
            refreshOn: now + 1800, refreshToken: "RT", familyId: "1",
            idToken: "eyJhbGciOiJub25lIn0.eyJvaWQiOiIwMCJ9.",
            account: .init(localAccountId: "00000000-0000-0000-66f3-3332eca7ea81", username: "alice@contoso.example"),
            accountSource: "authorization_code")
    }
}
