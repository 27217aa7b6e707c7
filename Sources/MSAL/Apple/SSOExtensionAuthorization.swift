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
        try await perform(operation: operation, items: items, userInterface: userInterface, webviewParameters: nil)
    }

    /// Performs the operation; the extension's user interface, when it shows one, is presented over the window of
    /// `webviewParameters`' presenting view controller (else the app's key window), as MSAL for iOS/macOS presents it.
    public func perform(operation: String, items: [String: String], userInterface: Bool,
                        webviewParameters: MSALWebviewParameters?) async throws -> [String: String] {
        let url = identityProviderURL
        let presenter = webviewParameters?.presenter
        return try await withCheckedThrowingContinuation { continuation in
            Task { @MainActor in
                let request = ASAuthorizationSingleSignOnProvider(identityProvider: url).createRequest()
                request.requestedOperation = ASAuthorization.OpenIDOperation(rawValue: operation)
                request.authorizationOptions = items.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
                request.isUserInterfaceEnabled = userInterface
                let controller = ASAuthorizationController(authorizationRequests: [request])
                let anchor = userInterface ? PresentationAnchors.anchor(for: presenter?.object) : nil
                SSOExtensionControllerDelegate.start(controller, anchor: anchor, interactive: operation == "login",
                                                     continuation: continuation)
            }
        }
    }
}

/// The window an interactive operation is presented over.
final class SSOExtensionPresentation: NSObject, ASAuthorizationControllerPresentationContextProviding {
    let anchor: ASPresentationAnchor

    init(anchor: ASPresentationAnchor) { self.anchor = anchor }

    func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor { anchor }
}

/// The delegate of one performed request, with its presentation context (the controller holds both weakly: the
/// running ones are kept here until they complete).
final class SSOExtensionControllerDelegate: NSObject, ASAuthorizationControllerDelegate {
    private static var running: Set<SSOExtensionControllerDelegate> = []
    private var continuation: CheckedContinuation<[String: String], any Error>?
    private var controller: ASAuthorizationController?
    private let presentation: SSOExtensionPresentation?
    /// A sign-in (`login`): the failures MSAL answers with its own web view fall back to it.
    private let interactive: Bool

    private init(anchor: ASPresentationAnchor?, interactive: Bool, continuation: CheckedContinuation<[String: String], any Error>) {
        presentation = anchor.map(SSOExtensionPresentation.init(anchor:))
        self.interactive = interactive
        self.continuation = continuation
    }

    static func start(_ controller: ASAuthorizationController, anchor: ASPresentationAnchor?, interactive: Bool,
                      continuation: CheckedContinuation<[String: String], any Error>) {
        let delegate = SSOExtensionControllerDelegate(anchor: anchor, interactive: interactive, continuation: continuation)
        delegate.controller = controller
        controller.delegate = delegate
        controller.presentationContextProvider = delegate.presentation
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
        finish(.failure(Self.error(error, interactive: interactive)))
    }


    private func finish(_ result: Result<[String: String], any Error>) {
        continuation?.resume(with: result)
        continuation = nil
        controller = nil
        Self.running.remove(self)
    }

    /// `MSIDSSOExtensionUnderlyingError`: the extension's own error is underneath.
    static let underlyingErrorCode = -6000

    /// The MSAL error of a failed request, as MSAL for iOS/macOS's common core reads it and MSAL converts it
    /// (``BrokerErrorMapping/ssoExtension(domain:code:underlying:interactive:correlationId:)``): the extension's own
    /// error under -6000 (`MSIDSSOExtensionUnderlyingError`), with the string values of its userInfo (its description
    /// and OAuth fields under the common core's keys).
    static func error(_ error: any Error, interactive: Bool = false) -> MSALErrorInfo {
        let failure = error as NSError
        let underlying = (failure.userInfo[NSUnderlyingErrorKey] as? NSError).map { inner in
            var userInfo: [String: String] = [:]
            for (key, value) in inner.userInfo.prefix(64) {
                if let text = value as? String { userInfo[key] = String(text.prefix(4096)) }
            }
            if userInfo["NSLocalizedDescription"] == nil { userInfo["NSLocalizedDescription"] = inner.localizedDescription }
            return (domain: inner.domain, code: inner.code, userInfo: userInfo)
        }
        return BrokerErrorMapping.ssoExtension(domain: failure.domain, code: failure.code, underlying: underlying,
                                               interactive: interactive, correlationId: nil)
    }
}
#endif
