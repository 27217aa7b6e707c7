import Foundation

/// The transport of an application with a partitioned token cache: before a token request (a POST) of a call bound
/// to a partition, takes the partition's lock and checks the call's view of it
/// (``PartitionOperation/beforeTokenRequest()``). Other requests (metadata, keys) pass unchanged.
struct PartitionGuardHTTPClient: MSALHTTPClient {
    let base: any MSALHTTPClient
    let owner: ObjectIdentifier

    func send(_ request: MSALHTTPRequest) async throws -> MSALHTTPResponse {
        if request.method.uppercased() == "POST", let operation = PartitionBinding.current, operation.owner == owner {
            do {
                try await operation.beforeTokenRequest()
            } catch {
                // An MSAL error: the token client sends no retry; the partitioned cache runs the call again.
                throw MSALErrorInfo.internal(.internalErrorUnexpected,
                                             "The token request was deferred: \(error)",
                                             underlyingError: (error as? MSALPartitionedCacheError) ?? PartitionRequestRefused())
            }
        }
        return try await base.send(request)
    }
}
