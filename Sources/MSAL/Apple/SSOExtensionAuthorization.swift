// Microsoft's Enterprise SSO extension through AuthenticationServices: each operation is an
// `ASAuthorizationSingleSignOnRequest` of the single sign-on provider for Microsoft's identity provider URL, performed
// by an `ASAuthorizationController`; the extension's answer is the header fields of the credential's
// `authenticatedResponse` (MSAL for iOS/macOS's common core, `MSIDSSOExtensionRequestDelegate`).
#if canImport(AuthenticationServices) && !os(watchOS) && !os(tvOS)
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AuthenticationServices

/// Performs the Enterprise SSO extension's operations with AuthenticationServices: the `MSAL` module's
/// ``MSALSSOExtensionPerformer`` on iOS and macOS, used where an MDM profile configured the extension for
/// `https://login.microsoftonline.com`.
public struct MSALSSOExtensionAuthorization: MSALSSOExtensionPerformer {
    /// The identity provider URL the extension is asked for.
    public let identityProviderURL: URL

    /// The performer for Microsoft's identity provider (`https://login.microsoftonline.com/common`), as MSAL for
    /// iOS/macOS asks for it.
    public init(identityProviderURL: URL = URL(string: "https://login.microsoftonline.com/common")!) {
        self.identityProviderURL = identityProviderURL
    }

    public func canPerform() async -> Bool {
        let url = identityProviderURL
        return await MainActor.run { ASAuthorizationSingleSignOnProvider(identityProvider: url).canPerformAuthorization }
    }

    public func perform(operation: String, items: [String: String], userInterface: Bool) async throws -> [String: String] {
        let url = identityProviderURL
        return try await withCheckedThrowingContinuation { continuation in
            Task { @MainActor in
                let request = ASAuthorizationSingleSignOnProvider(identityProvider: url).createRequest()
                request.requestedOperation = ASAuthorization.OpenIDOperation(rawValue: operation)
                request.authorizationOptions = items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
                request.isUserInterfaceEnabled = userInterface
                let controller = ASAuthorizationController(authorizationRequests: [request])
                SSOExtensionControllerDelegate.start(controller, continuation: continuation)
            }
        }
    }
}

/// The delegate of one performed request (the controller holds its delegate weakly: the running ones are kept here
/// until they complete).
final class SSOExtensionControllerDelegate: NSObject, ASAuthorizationControllerDelegate {
    private static var running: Set<SSOExtensionControllerDelegate> = []
    private var continuation: CheckedContinuation<[String: String], any Error>?
    private var controller: ASAuthorizationController?

    private init(continuation: CheckedContinuation<[String: String], any Error>) {
        self.continuation = continuation
    }

    static func start(_ controller: ASAuthorizationController, continuation: CheckedContinuation<[String: String], any Error>) {
        let delegate = SSOExtensionControllerDelegate(continuation: continuation)
        delegate.controller = controller
        controller.delegate = delegate
        running.insert(delegate)
        controller.performRequests()
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization) {
        guard let credential = authorization.credential as? ASAuthorizationSingleSignOnCredential,
              let headers = credential.authenticatedResponse?.allHeaderFields else {
            return finish(.failure(MSALErrorInfo.internal(.internalErrorBrokerCorruptedResponse,
                                                          "The SSO extension answered without a response.")))
        }
        var fields: [String: String] = [:]
        for (key, value) in headers {
            if let key = key as? String, let value = value as? String { fields[key] = value }
        }
        finish(.success(fields))
    }

    func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        finish(.failure(Self.error(error)))
    }

    private func finish(_ result: Result<[String: String], any Error>) {
        continuation?.resume(with: result)
        continuation = nil
        controller = nil
        Self.running.remove(self)
    }

    /// `MSIDSSOExtensionUnderlyingError`: the extension's own error is underneath.
    static let underlyingErrorCode = -6000

    /// The MSAL error of a failed request, as MSAL for iOS/macOS maps it: cancelled → ``MSALError/userCanceled``,
    /// not interactive → ``MSALError/interactionRequired``, not handled (no extension) → no broker (the library's own
    /// flow), -6000 → the extension's own error underneath.
    static func error(_ error: any Error) -> MSALErrorInfo {
        let failure = error as NSError
        guard failure.domain == ASAuthorizationError.errorDomain else {
            return SSOExtensionAnswer.error(domain: failure.domain, code: failure.code,
                                            description: failure.localizedDescription, correlationId: nil)
        }
        switch failure.code {
        case ASAuthorizationError.Code.canceled.rawValue:
            return MSALErrorInfo(.userCanceled, internalCode: .internalErrorSessionCanceled,
                                 description: "The SSO extension's sign-in was canceled.")
        case ASAuthorizationError.Code.notInteractive.rawValue:
            return .interactionRequired("The SSO extension needs to show its user interface.")
        case ASAuthorizationError.Code.notHandled.rawValue:
            return .internal(.internalBrokerNotAvailable, "No SSO extension handles Microsoft's identity provider.")
        case underlyingErrorCode:
            guard let underlying = failure.userInfo[NSUnderlyingErrorKey] as? NSError else {
                return .internal(.internalErrorBrokerCorruptedResponse, "The SSO extension failed without an error.")
            }
            return SSOExtensionAnswer.error(domain: underlying.domain, code: underlying.code,
                                            description: underlying.localizedDescription, correlationId: nil)
        default:
            return .internal(.internalErrorBrokerUnknown, "The SSO extension failed (\(failure.code)).")
        }
    }
}
#endif
