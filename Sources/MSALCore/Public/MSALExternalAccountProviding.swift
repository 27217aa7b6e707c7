import Foundation

/// An application's own account storage kept in step with MSAL's, as MSAL for iOS/macOS's
/// `MSALExternalAccountProviding`: add one with ``MSALCacheConfig/addExternalAccountProvider(_:)`` and MSAL tells it of
/// every account a token call returns, of every account removed, and merges its accounts into the account lookups,
/// instead of the application updating its storage after each call.
public protocol MSALExternalAccountProviding: AnyObject, Sendable {
    /// An account a token call returned, new or updated, with its id-token claims. A thrown error is logged; the token
    /// call's result stands.
    func update(_ account: any MSALAccountProtocol, idTokenClaims: [AnyHashable: Any]) throws

    /// An account to remove (``MSALPublicClientApplication/remove(_:)``, a sign-out); `wipeAccount`: every artifact of
    /// it is to go. A thrown error fails the removal after MSAL's own cache was cleared.
    func remove(_ account: any MSALAccountProtocol, wipeAccount: Bool, tenantProfiles: [MSALTenantProfile]?) throws

    /// The accounts of this storage that match `parameters`; MSAL merges them with its own (an account MSAL already
    /// has is not listed twice). A thrown error fails the lookup.
    func accounts(with parameters: MSALAccountEnumerationParameters) throws -> [any MSALAccountProtocol]
}

/// The application's external account providers at work (MSAL for iOS/macOS's `MSALExternalAccountHandler`).
struct ExternalAccounts: Sendable {
    let providers: [any MSALExternalAccountProviding]

    /// Tells every provider of `result`'s account (a failure is logged and ends the round, as in MSAL).
    func update(with result: MSALResult, log: MSALLog) {
        let claims = (result.tenantProfile.claims ?? [:]).reduce(into: [AnyHashable: Any]()) { $0[$1.key] = $1.value }
        for provider in providers {
            do {
                try provider.update(result.account, idTokenClaims: claims)
            } catch {
                log.with(correlationId: result.correlationId).warning("An external account provider failed to update the account.")
                return
            }
        }
    }

    /// Tells every provider to remove `account`.
    func remove(_ account: MSALAccount, wipeAccount: Bool) throws {
        for provider in providers {
            do {
                try provider.remove(account, wipeAccount: wipeAccount, tenantProfiles: account.tenantProfiles)
            } catch {
                throw Self.failure(error, "remove the account")
            }
        }
    }

    /// `accounts` with the providers' accounts that match `parameters` and are not among them.
    func merged(_ accounts: [MSALAccount], _ parameters: MSALAccountEnumerationParameters,
                defaultEnvironment: String) throws -> [MSALAccount] {
        var merged = accounts
        var known = Set(accounts.compactMap { $0.identifier?.lowercased() })
        for provider in providers {
            let external: [any MSALAccountProtocol]
            do {
                external = try provider.accounts(with: parameters)
            } catch {
                throw Self.failure(error, "list its accounts")
            }
            for item in external {
                guard let id = item.identifier, !id.isEmpty, !known.contains(id.lowercased()) else { continue }
                let account = (item as? MSALAccount) ?? MSALAccount(
                    username: item.username, homeAccountId: id,
                    environment: item.environment.isEmpty ? defaultEnvironment : item.environment,
                    tenantProfiles: nil, claims: item.accountClaims.flatMap { JSONValue(foundation: $0)?.objectValue })
                guard parameters.matches(account) else { continue }
                known.insert(id.lowercased())
                merged.append(account)
            }
        }
        return merged
    }

    private static func failure(_ error: any Error, _ what: String) -> MSALErrorInfo {
        if let info = error as? MSALErrorInfo { return info }
        return MSALErrorInfo.internal(.internalErrorUnexpected, "An external account provider failed to \(what): \(error.localizedDescription)")
    }
}
