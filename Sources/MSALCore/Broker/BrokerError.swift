package import Foundation

/// A broker's `error` object (msalruntime's `ErrorToJson`): a status in msalruntime's internal numbering, a sub-status,
/// an error code, a tag and a context text. Mapped to MSAL's errors as MSAL for iOS/macOS reports a broker's:
/// the user must act → ``MSALError/interactionRequired``; the user cancelled → ``MSALError/userCanceled``; the
/// device must be registered → ``MSALError/workplaceJoinRequired``; token protection or another protection policy
/// → ``MSALError/serverProtectionPoliciesRequired``; the network → ``MSALError/serverError``; no broker after all →
/// ``MSALInternalError/internalBrokerNotAvailable`` (the library then runs its own flow).
package struct BrokerError: Sendable, Equatable {
    /// msalruntime's `StatusInternal` values (reference §1.6).
    package enum Status: Int, Sendable {
        case unexpected = 0, reserved, interactionRequired, noNetwork, networkTemporarilyUnavailable,
             serverTemporarilyUnavailable, apiContractViolation, userCanceled, applicationCanceled,
             incorrectConfiguration, insufficientBuffer, authorityUntrusted, userSwitch, accountUnusable,
             userDataRemovalRequired, transientError, accountSwitch, deviceNotRegistered, keyNotFound,
             accountNotFound, requiredBrokerMissing, fallbackToNativeMsal, certificateNotFound, mdmEnrollmentHandoff
    }

    /// `SubStatusInternal` values that change the mapping.
    package static let protectionPolicyRequired = 18
    package static let tokenBindingNotSupportedByBroker = 40

    package var status: Int
    package var subStatus: Int
    package var errorCode: Int64
    package var tag: Int
    package var context: String

    init(_ value: JSONValue) {
        let object = value.objectValue ?? [:]
        func integer(_ key: String) -> Int64 {
            guard let number = object[key]?.doubleValue, number.isFinite, abs(number) < 9e15 else { return 0 }
            return Int64(number)
        }
        status = Int(clamping: integer("status"))
        subStatus = Int(clamping: integer("subStatus"))
        errorCode = integer("errorCode")
        tag = Int(clamping: integer("tag"))
        context = String((object["context"]?.stringValue ?? "").prefix(1024))
    }

    /// The MSAL error for this broker error; its description names the broker's context and numbers, as MSAL for
    /// Python words a broker error ("<context>. Status: …, Error code: …, Tag: …").
    package func errorInfo(correlationId: UUID?) -> MSALErrorInfo {
        // A context that ends its own sentence gets no second period.
        let trimmed = context.trimmingCharacters(in: .whitespaces)
        let sentence = trimmed.hasSuffix(".") || trimmed.hasSuffix("!") || trimmed.hasSuffix("?") ? String(trimmed.dropLast()) : trimmed
        let words = (sentence.isEmpty ? "The broker failed" : "The broker failed: \(sentence)")
            + ". Status: \(status), Error code: \(errorCode), Tag: \(tag)."
        if subStatus == Self.protectionPolicyRequired {
            return MSALErrorInfo(.serverProtectionPoliciesRequired, description: words, correlationId: correlationId)
        }
        switch Status(rawValue: status) {
        case .interactionRequired, .accountUnusable, .userSwitch, .accountSwitch:
            return .interactionRequired(words, correlationId: correlationId)
        case .accountNotFound:
            return .interactionRequired(words, internalCode: .internalErrorAccountRequired, correlationId: correlationId)
        case .userCanceled, .applicationCanceled:
            return MSALErrorInfo(.userCanceled, internalCode: .internalErrorSessionCanceled, description: words,
                                 correlationId: correlationId)
        case .deviceNotRegistered:
            return MSALErrorInfo(.workplaceJoinRequired, description: words, correlationId: correlationId)
        case .noNetwork, .networkTemporarilyUnavailable, .serverTemporarilyUnavailable, .transientError:
            return .server(words, correlationId: correlationId)
        case .requiredBrokerMissing, .fallbackToNativeMsal:
            return .internal(.internalBrokerNotAvailable, words, correlationId: correlationId)
        case .authorityUntrusted:
            return .internal(.internalErrorFailedAuthorityValidation, words, correlationId: correlationId)
        case .incorrectConfiguration, .apiContractViolation:
            return .internal(.internalErrorInvalidParameter, words, correlationId: correlationId)
        case .mdmEnrollmentHandoff:
            return MSALErrorInfo(.mdmEnrollmentCompletedNeedsRetry, description: words, correlationId: correlationId)
        default:
            return .internal(.internalErrorUnexpected, words, correlationId: correlationId)
        }
    }
}
