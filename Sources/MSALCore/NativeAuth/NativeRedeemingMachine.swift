import Foundation

/// A native-authentication state machine that ends by redeeming a grant (``NativeSignInFlow``,
/// ``NativeStrongAuthFlow``): what the token endpoint answered becomes its next step, the same way for both.
protocol NativeRedeemingMachine {
    associatedtype Step
    mutating func redeemed()
    mutating func redeemFailed(_ error: NativeAuthServerError) -> Step
    mutating func received(_ answer: NativeAuthAnswer) -> Step
    mutating func redeemInterrupted(_ why: String) -> Step
}

/// What redeeming a machine's grant gave it: the next step, or the signed-in result.
enum NativeRedeemed<Step> {
    case next(Step)
    case done(MSALResult)
}

extension NativeRedeemingMachine {
    /// Applies the token endpoint's answer for the grant being redeemed.
    mutating func apply(_ outcome: NativeAuthClient.Redeemed) -> NativeRedeemed<Step> {
        switch outcome {
        case .signedIn(let result):
            redeemed()
            return .done(result)
        case .rejected(let error): return .next(redeemFailed(error))
        case .browserRequired(let reason): return .next(received(.browserRequired(reason: reason)))
        case .failed(let why): return .next(redeemInterrupted(why))
        }
    }
}

extension NativeSignInFlow: NativeRedeemingMachine {}
extension NativeStrongAuthFlow: NativeRedeemingMachine {}
