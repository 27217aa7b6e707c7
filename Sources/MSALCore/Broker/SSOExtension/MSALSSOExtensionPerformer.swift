import Foundation

/// The way to Microsoft's Enterprise SSO extension (Apple platforms, deployed by an MDM profile): on Apple platforms
/// the `MSAL` module's performs each operation with an `ASAuthorizationSingleSignOnProvider` for
/// `https://login.microsoftonline.com/common`. Tests pass their own, which hand the operation to an emulated extension.
public protocol MSALSSOExtensionPerformer: Sendable {
    /// Whether an extension is configured for Microsoft's identity provider (`canPerformAuthorization`).
    func canPerform() async -> Bool
    /// Performs `operation` (`requestedOperation`) with `items` (`authorizationOptions`), the extension showing its
    /// own user interface only when `userInterface`; returns the header fields of the extension's
    /// `authenticatedResponse`.
    ///
    /// - Throws: ``MSALError/userCanceled`` when the user cancels, ``MSALError/interactionRequired`` when the
    ///   operation needs a user interface it may not show, the extension's own error as an ``MSALErrorInfo``, and
    ///   ``MSALInternalError/internalBrokerNotAvailable`` when no extension answers.
    func perform(operation: String, items: [String: String], userInterface: Bool) async throws -> [String: String]
    /// The same, for an interactive request of the app: the extension's user interface is presented over the window
    /// of `webviewParameters` (its presenting view controller). The default ignores them.
    func perform(operation: String, items: [String: String], userInterface: Bool,
                 webviewParameters: MSALWebviewParameters?) async throws -> [String: String]
}

extension MSALSSOExtensionPerformer {
    public func perform(operation: String, items: [String: String], userInterface: Bool,
                        webviewParameters: MSALWebviewParameters?) async throws -> [String: String] {
        try await perform(operation: operation, items: items, userInterface: userInterface)
    }
}
