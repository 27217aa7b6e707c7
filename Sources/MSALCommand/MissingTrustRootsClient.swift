import MSAL

/// The transport of a sign-in whose recorded CA file is gone: every request fails with the error that says which
/// file, where it was named and how to sign in again, while commands that need no request (status, accounts,
/// logout, a cached token) work.
struct MissingTrustRootsClient: MSALHTTPClient {
    let error: CLIError

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        throw error
    }
}
