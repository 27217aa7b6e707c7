import Foundation
@testable import MSALCore

/// The broker's answers: any process can take the broker's name on the session bus, so each answer is read as
/// hostile input. Every reader either gives a value or throws MSALErrorInfo; a token is only ever for the account
/// that was asked for.
enum BrokerFuzzing {
    static let expected = BrokerAccount(homeAccountId: "uid.utid", environment: "login.microsoftonline.com", realm: "utid",
                                        localAccountId: "uid", username: "adele@contoso.onmicrosoft.com")

    static func answer(_ data: Data) throws {
        if let token = try fuzzExpectingTypedErrors("BrokerAnswer.token", {
            try BrokerAnswer.token(data, expected: expected, correlationId: FuzzFixtures.correlationId)
        }) {
            try fuzzCheck(token.account.homeAccountId.lowercased() == expected.homeAccountId,
                          "a token for another account was taken")
            try fuzzCheck(!token.accessToken.isEmpty && token.expiresOn.timeIntervalSince1970 > 0,
                          "a token without an access token or an expiry was taken")
        }
        _ = try fuzzExpectingTypedErrors("BrokerAnswer.accounts") { try BrokerAnswer.accounts(data, correlationId: nil) }
        _ = try fuzzExpectingTypedErrors("BrokerAnswer.signedOut") { try BrokerAnswer.signedOut(data, correlationId: nil) }
        _ = try fuzzExpectingTypedErrors("BrokerAnswer.version") { try BrokerAnswer.version(data, correlationId: nil) }
    }
}
