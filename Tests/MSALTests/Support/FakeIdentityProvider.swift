import _CryptoExtras
import Crypto
import Foundation
import MSAL
import MSALTesting
@testable import MSALCore
import MSALTestSupport

/// The scripted identity provider, user agent and clock of MSALTesting, under the names the tests use.

/// Builds an application on the fake provider with an in-memory cache.
func makeFakeApp(_ provider: MSALScriptedIdentityProvider, clock: MSALTestClock = MSALTestClock(),
                 storage: (any MSALTokenCacheStorage)? = nil,
                 configure: (MSALPublicClientApplicationConfig) -> Void = { _ in }) throws -> MSALPublicClientApplication {
    let authority = try MSALAADAuthority(url: URL(string: "https://\(provider.host)/common")!)
    let config = MSALPublicClientApplicationConfig(clientId: provider.clientId, redirectUri: "http://localhost", authority: authority)
    config.httpClient = provider
    config.clock = HookedClock(clock)
    provider.clock = clock
    config.cacheConfig.storage = storage ?? MSALInMemoryTokenCacheStorage()
    configure(config)
    return try MSALPublicClientApplication(configuration: config)
}

func interactiveParameters(_ provider: MSALScriptedIdentityProvider, scopes: [String] = ["User.Read"]) -> MSALInteractiveTokenParameters {
    let webview = MSALWebviewParameters()
    webview.webAuthenticator = MSALScriptedWebAuthenticator(provider: provider)
    return MSALInteractiveTokenParameters(scopes: scopes, webviewParameters: webview)
}
