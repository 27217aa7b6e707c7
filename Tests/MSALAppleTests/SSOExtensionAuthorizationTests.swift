import AuthenticationServices
import Foundation
import MSAL
import MSALEmulator
import MSALTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension AppleSurfaceTests {
    /// The Enterprise SSO extension through AuthenticationServices (the stand-in's single sign-on provider, whose
    /// extension the emulator plays): the platform's default application signs in and gets tokens through it, reads
    /// the device's information, and maps the framework's errors as MSAL for iOS/macOS does.
    @Suite("Enterprise SSO extension through AuthenticationServices") struct SSOExtensionAuthorizationTests {
        static let provider = URL(string: "https://login.microsoftonline.com/common")!

        @MainActor static func answerWith(_ emulator: IdentityEmulator) {
            SurfaceSSOExtension.configuredURLs = [provider]
            SurfaceSSOExtension.handler = { operation, items, _ in
                var fields: [String: String] = [:]
                for item in items { fields[item.name] = item.value ?? "" }
                do {
                    return .success(try await emulator.ssoExtensionAnswer(operation, items: fields))
                } catch let error as EmulatedSSOExtensionError {
                    guard error.isUnderlying else { return .failure(NSError(domain: error.domain, code: error.code)) }
                    let underlying = NSError(domain: error.domain, code: error.code, userInfo: error.userInfo)
                    return .failure(NSError(domain: ASAuthorizationError.errorDomain, code: -6000,
                                            userInfo: [NSUnderlyingErrorKey: underlying]))
                } catch {
                    return .failure(NSError(domain: ASAuthorizationError.errorDomain, code: 1000))
                }
            }
        }

        @Test @MainActor func theDefaultApplicationUsesTheExtension() async throws {
            AppleFixture.resetKeychain()
            defer { SurfaceSSOExtension.reset() }
            let (emulator, app) = try await AppleFixture.emulatorApp()
            Self.answerWith(emulator)
            let shown = ShownController()
            let result = try await app.acquireToken(with: MSALInteractiveTokenParameters(
                scopes: ["User.Read"], webviewParameters: MSALWebviewParameters(authPresentationViewController: shown.controller)))
            #expect(result.metadata.tokenSource == .broker)
            // The extension's sign-in is presented over the window of the app's presenting controller.
            #expect(SurfaceSSOExtension.lastAnchor == ObjectIdentifier(shown.window))
            let silent = MSALSilentTokenParameters(scopes: ["User.Read"], account: result.account)
            silent.forceRefresh = true
            #expect(try await app.acquireTokenSilent(with: silent).metadata.tokenSource == .broker)
            let information = try await app.deviceInformation(with: nil)
            #expect(information.hasAADSSOExtension)
            await emulator.stop()
        }

        @Test func theFrameworksErrorsMapAsMSALMapsThem() async throws {
            let performer = MSALSSOExtensionAuthorization(identityProviderURL: Self.provider)
            func failing(_ error: NSError) async -> MSALErrorInfo? {
                await MainActor.run {
                    SurfaceSSOExtension.configuredURLs = [Self.provider]
                    SurfaceSSOExtension.handler = { _, _, _ in .failure(error) }
                }
                defer { Task { @MainActor in SurfaceSSOExtension.reset() } }
                do {
                    _ = try await performer.perform(operation: "refresh", items: [:], userInterface: false)
                    return nil
                } catch {
                    return error as? MSALErrorInfo
                }
            }
            #expect(await failing(ASAuthorizationError(.canceled) as NSError)?.code == .userCanceled)
            #expect(await failing(ASAuthorizationError(.notInteractive) as NSError)?.code == .interactionRequired)
            #expect(await failing(ASAuthorizationError(.notHandled) as NSError)?.internalCode == .internalBrokerNotAvailable)
            // The common core's test vector (`MSIDSSOExtensionRequestDelegateTests.m:94-107`): MSIDErrorDomain -51115
            // with its OAuth fields under -6000 reaches the app as interactionRequired, the fields kept.
            let underlying = NSError(domain: "MSIDErrorDomain", code: -51115, userInfo: [
                "MSIDErrorDescriptionKey": "Test underlying error", "MSIDOAuthErrorKey": "oauth error",
                "MSIDOAuthSubErrorKey": "oauth suberror"])
            let mapped = await failing(NSError(domain: ASAuthorizationError.errorDomain, code: -6000,
                                               userInfo: [NSUnderlyingErrorKey: underlying]))
            #expect(mapped?.code == .interactionRequired)
            #expect(mapped?.oauthError == "oauth error" && mapped?.oauthSubError == "oauth suberror")
            // -6000 without an underlying error: a corrupted answer (`MSIDSSOExtensionRequestDelegateTests.m:121-131`).
            #expect(await failing(NSError(domain: ASAuthorizationError.errorDomain, code: -6000))?.internalCode
                == .internalErrorBrokerCorruptedResponse)
        }
    }
}
