import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("Errors")
struct ErrorTests {
    @Test func rawValuesMatchMSAL() {
        #expect(MSALErrorDomain == "MSALErrorDomain")
        #expect(MSALError.internal.rawValue == -50000)
        #expect(MSALError.interactionRequired.rawValue == -50002)
        #expect(MSALError.serverDeclinedScopes.rawValue == -50003)
        #expect(MSALError.userCanceled.rawValue == -50005)
        #expect(MSALError.serverError.rawValue == -50006)
        #expect(MSALError.serverInvalidRequestResetPasswordRequired.rawValue == -50142)
        #expect(MSALInternalError.internalErrorInvalidParameter.rawValue == -42000)
        #expect(MSALInternalError.internalErrorMismatchedUser.rawValue == -42101)
        #expect(MSALInternalError.internalErrorAmbiguousAccount.rawValue == -42102)
        #expect(MSALInternalError.internalErrorInteractiveSessionAlreadyRunning.rawValue == -42402)
        #expect(MSALInternalError.internalErrorInvalidState.rawValue == -42501)
        #expect(MSALOAuthErrorKey == "MSALOAuthErrorKey")
        #expect(MSALInternalErrorCodeKey == "MSALInternalErrorCodeKey")
    }

    @Test func bridgesToNSErrorWithUserInfo() {
        var info = MSALErrorInfo.internal(.internalErrorInvalidGrant, "The grant is invalid.", correlationId: UUID())
        info.oauthError = "invalid_grant"
        info.oauthSubError = "bad_token"
        info.stsErrorCodes = ["70008"]
        info.httpStatusCode = 400
        info.httpHeaders = ["x-ms-request-id": "1"]
        let error: any Error = info
        let ns = error as NSError
        #expect(ns.domain == MSALErrorDomain)
        #expect(ns.code == MSALError.internal.rawValue)
        #expect(ns.userInfo[MSALInternalErrorCodeKey] as? Int == -42004)
        #expect(ns.userInfo[MSALOAuthErrorKey] as? String == "invalid_grant")
        #expect(ns.userInfo[MSALOAuthSubErrorKey] as? String == "bad_token")
        #expect(ns.userInfo[MSALSTSErrorCodesKey] as? [String] == ["70008"])
        #expect(ns.userInfo[MSALHTTPResponseCodeKey] as? String == "400")
        #expect(ns.userInfo[MSALCorrelationIDKey] as? String == info.correlationId?.uuidString)
        #expect(ns.localizedDescription == "The grant is invalid.")
    }

    @Test func patternMatchingOnCodes() {
        let error: any Error = MSALErrorInfo(.interactionRequired, description: "x")
        #expect(MSALError.interactionRequired ~= error)
        let internalError: any Error = MSALErrorInfo.invalidParameter("bad")
        #expect(MSALInternalError.internalErrorInvalidParameter ~= internalError)
        #expect(!(MSALError.userCanceled ~= internalError))
    }

    @Test func oauthErrorsMapToMSALCodes() {
        let id = UUID()
        func map(_ error: String, sub: String? = nil, codes: [String] = []) -> MSALErrorInfo {
            OAuthErrorBody(error: error, errorDescription: "AADSTS1: text\r\nTrace ID: 1", subError: sub, errorCodes: codes)
                .msalError(httpStatus: 400, headers: nil, correlationId: id)
        }
        #expect(map("invalid_grant").code == .interactionRequired)
        #expect(map("invalid_grant").internalCode == .internalErrorInvalidGrant)
        #expect(map("interaction_required").code == .interactionRequired)
        #expect(map("consent_required").code == .interactionRequired)
        #expect(map("invalid_grant", sub: "protection_policy_required").code == .serverProtectionPoliciesRequired)
        #expect(map("invalid_request", codes: ["50142"]).code == .serverInvalidRequestResetPasswordRequired)
        #expect(map("invalid_client").internalCode == .internalErrorInvalidClient)
        #expect(map("invalid_scope").internalCode == .internalErrorInvalidScope)
        #expect(map("unauthorized_client").internalCode == .internalErrorUnauthorizedClient)
        #expect(map("access_denied", sub: "cancel").code == .userCanceled)
        #expect(map("temporarily_unavailable").code == .serverError)
        #expect(map("invalid_grant").errorDescription == "The server returned invalid_grant: AADSTS1: text")
    }

    @Test func resultDescriptionHidesTheToken() throws {
        let account = MSALAccount(username: "a@b.c", homeAccountId: "u.t", environment: "login.microsoftonline.com",
                                  tenantProfiles: nil, claims: nil)
        let profile = MSALTenantProfile(identifier: "u", environment: nil, tenantId: "t", isHomeTenantProfile: true, claims: nil)
        let result = MSALResult(accessToken: "SECRET-TOKEN", expiresOn: nil, extendedLifeTimeToken: false, idToken: "ID-TOKEN",
                                scopes: ["User.Read"], tenantProfile: profile, account: account,
                                authority: try MSALAuthority(url: URL(string: "https://login.microsoftonline.com/t")!),
                                correlationId: UUID())
        #expect(!result.description.contains("SECRET-TOKEN"))
        #expect(!"\(result)".contains("ID-TOKEN"))
        #expect(result.authorizationHeader == "Bearer SECRET-TOKEN")
    }
}
