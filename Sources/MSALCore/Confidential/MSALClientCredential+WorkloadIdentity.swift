public import Foundation
import MSALSupport

extension MSALClientCredential {
    /// The federated token of Azure workload identity (Kubernetes, and any platform that projects a token file):
    /// the file named by `tokenFile`, else by the `AZURE_FEDERATED_TOKEN_FILE` environment variable (read when
    /// the credential is made). The file is read again whenever it changes (Kubernetes rotates it), and at most
    /// once per request otherwise.
    ///
    /// A missing variable, an unreadable, empty or oversized file (over 64 KiB) gives
    /// ``MSALInternalError/internalErrorInvalidParameter`` with the path, never the token.
    public static func workloadIdentity(tokenFile: String? = nil,
                                        environment: [String: String] = ProcessInfo.processInfo.environment)
        -> MSALClientCredential
    {
        let path = tokenFile ?? environment["AZURE_FEDERATED_TOKEN_FILE"]
        let reader = FederatedTokenFile(path: path)
        return MSALClientCredential(kind: .assertion({ _ in try reader.read() }), label: "workload identity token")
    }
}

/// Reads a projected federated token file, again only when its modification time or size changed.
final class FederatedTokenFile: Sendable {
    static let maximumBytes = 64 * 1024
    let path: String?
    private let memo = LockedBox<(stamp: [String], token: String)?>(nil)

    init(path: String?) {
        self.path = path
    }

    func read() throws -> String {
        guard let path, !path.isEmpty else {
            throw MSALErrorInfo.invalidParameter(
                "Workload identity needs a federated token file: AZURE_FEDERATED_TOKEN_FILE is not set.")
        }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw MSALErrorInfo.invalidParameter("The federated token file \(path) cannot be read.")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        let stamp = [String(describing: attributes[.modificationDate] ?? ""), String(size),
                     String(describing: attributes[.systemFileNumber] ?? "")]
        if let memo = memo.get(), memo.stamp == stamp { return memo.token }
        guard (attributes[.type] as? FileAttributeType) != .typeDirectory, size <= Self.maximumBytes else {
            throw MSALErrorInfo.invalidParameter(
                "The federated token file \(path) is not a file of at most \(Self.maximumBytes) bytes.")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MSALErrorInfo.invalidParameter("The federated token file \(path) cannot be read.")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: Self.maximumBytes + 1)) ?? nil
        guard let data, data.count <= Self.maximumBytes,
              let token = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
              !token.isEmpty else {
            throw MSALErrorInfo.invalidParameter("The federated token file \(path) is empty, too large or not text.")
        }
        memo.set((stamp, token))
        return token
    }
}
