import Foundation
import MSALTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MSAL
@testable import MSALCore
import MSALEmulator
import MSALTesting

/// Counts the requests an application sends, and passes them to the real transport.

extension MSALRecordingHTTPClient {
    /// A recorder in front of MSAL's default transport.
    convenience init() { self.init(forwardingTo: MSALDefaultHTTPClient.shared) }
    /// How many token requests were sent.
    var tokenRequests: Int { count(pathSuffix: "/oauth2/v2.0/token") }
}

/// An emulator with auto-approval for `username` (the default user when nil).
func startEmulator(autoApprove username: String? = nil) async throws -> IdentityEmulator {
    var configuration = EmulatorConfiguration.default
    configuration.autoApproveUsername = username ?? configuration.defaults.username
    return try await IdentityEmulator.start(configuration)
}
