import Foundation

extension ClientEngine {
    /// The key binding of a proof-of-possession request: the scheme's own key, else the application's
    /// (``MSALPublicClientApplicationConfig/popKeyStore``); nil for a bearer request.
    func popBinding(_ scheme: MSALAuthenticationSchemePop?, correlationId: UUID) throws -> PoPBinding? {
        guard let scheme else { return nil }
        guard let host = scheme.requestUrl.host, !host.isEmpty,
              ["https", "http"].contains(scheme.requestUrl.scheme?.lowercased() ?? "") else {
            throw MSALErrorInfo.invalidParameter("The proof-of-possession request URL must be an http or https URL with a host.",
                                                 correlationId: correlationId)
        }
        do {
            return PoPBinding(key: try scheme.keyPair ?? settings.popKeyStore.keyPair(), scheme: scheme)
        } catch let error as MSALErrorInfo {
            throw error
        } catch {
            throw MSALErrorInfo.internal(.internalErrorUnexpected,
                                         "The proof-of-possession key could not be read or made (\(type(of: error))).",
                                         correlationId: correlationId)
        }
    }

    /// The signed request carrying `accessToken` for `binding`'s HTTP request (signed anew on every call).
    func signedRequest(_ accessToken: String, _ binding: PoPBinding) throws -> String {
        do {
            return try SignedHTTPRequest.make(accessToken: accessToken, binding: binding, now: clock.now(),
                                              randomNonce: { UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() })
        } catch let error as MSALErrorInfo {
            throw error
        } catch {
            throw MSALErrorInfo.internal(.internalErrorUnexpected, "The proof-of-possession request could not be signed.")
        }
    }

    /// The result of a cached bound token: a new signed request for it.
    func cachedPoPResult(_ token: PoPAccessToken, binding: PoPBinding, idToken: String?, account: MSALAccount,
                         authority: MSALAuthority, descriptor: AuthorityDescriptor, correlationId: UUID) throws -> MSALResult {
        RequestDiagnostics.current?.noteSource(.cache)
        let profile = tenantProfile(homeAccountId: account.identifier ?? "", realm: token.realm,
                                    environment: token.environment, rawIdToken: idToken)
        let resultAuthority = descriptor == authority.descriptor ? authority : authorityObject(for: descriptor)
        return MSALResult(accessToken: try signedRequest(token.secret, binding),
                          expiresOn: Date(timeIntervalSince1970: TimeInterval(token.expiresOn)), extendedLifeTimeToken: false,
                          idToken: idToken, scopes: Scopes.resultScopes(token.target.split(separator: " ").map(String.init)),
                          tenantProfile: profile, account: account, authority: resultAuthority, correlationId: correlationId,
                          authenticationScheme: "Pop")
    }
}
