import Foundation

/// Azure Arc's handshake: the first request is answered 401 with `WWW-Authenticate: Basic realm=<key file>`; the
/// key file must lie in the agent's token directory, end in `.key` and hold at most 4 KiB; its content goes back as
/// `Authorization: Basic <content>`. Anything else is refused with a typed error, and nothing is read.
struct AzureArcChallenge: Sendable {
    /// Where the Azure Connected Machine agent writes its key files on Linux.
    static let linuxTokenDirectory = "/var/opt/azcmagent/tokens"
    static let maximumKeyBytes = 4096

    /// The key file the challenge names, checked against `directory`.
    static func keyFile(wwwAuthenticate: String?, directory: String, correlationId: UUID) throws -> String {
        guard let header = wwwAuthenticate,
              let equals = header.firstIndex(of: "="),
              header[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "basic realm" else {
            throw MSALErrorInfo.invalidResponse("Azure Arc answered 401 without a Basic realm challenge.",
                                                correlationId: correlationId)
        }
        let path = header[header.index(after: equals)...].trimmingCharacters(in: CharacterSet(charactersIn: " \""))
        let file = URL(fileURLWithPath: path).standardizedFileURL
        let expected = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        guard file.deletingLastPathComponent().path == expected.path, file.pathExtension == "key",
              !file.lastPathComponent.hasPrefix(".") else {
            throw MSALErrorInfo.invalidResponse(
                "Azure Arc's challenge names a key file outside \(directory) or without the .key extension; it was not read.",
                correlationId: correlationId)
        }
        return file.path
    }

    /// The key file's content, read only when it is a regular file of at most ``maximumKeyBytes``.
    static func readKey(_ path: String, correlationId: UUID) throws -> String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes, (attributes[.type] as? FileAttributeType) == .typeRegular else {
            throw MSALErrorInfo.invalidResponse("Azure Arc's key file \(path) is not a readable regular file.",
                                                correlationId: correlationId)
        }
        guard ((attributes[.size] as? NSNumber)?.intValue ?? Int.max) <= maximumKeyBytes,
              let handle = FileHandle(forReadingAtPath: path) else {
            throw MSALErrorInfo.invalidResponse(
                "Azure Arc's key file \(path) is larger than \(maximumKeyBytes) bytes or unreadable; it was not used.",
                correlationId: correlationId)
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maximumKeyBytes + 1), data.count <= maximumKeyBytes,
              let key = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !key.isEmpty else {
            throw MSALErrorInfo.invalidResponse("Azure Arc's key file \(path) is empty, too large or not text.",
                                                correlationId: correlationId)
        }
        return key
    }
}

/// When a managed-identity request is tried again: HTTP 404 (IMDS not ready), 408, 410 (IMDS upgrading), 429 and
/// 5xx, and transport failures, with exponential back-off (`baseDelay`, doubled each time, at most `maxDelay`),
/// at most `maxRetries` times. Pure.
struct ManagedIdentityRetryPolicy: Sendable {
    var maxRetries = 3
    var baseDelay: TimeInterval = 1
    var maxDelay: TimeInterval = 30

    static func isRetryable(status: Int) -> Bool {
        status == 404 || status == 408 || status == 410 || status == 429 || (500...599).contains(status)
    }

    /// The wait before retry number `attempt` (0-based), or nil when no retry is left. A `Retry-After` the server
    /// gave wins when it is within `maxDelay`.
    func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?) -> TimeInterval? {
        guard attempt < maxRetries else { return nil }
        if let retryAfter, retryAfter >= 0, retryAfter <= maxDelay { return retryAfter }
        return min(maxDelay, baseDelay * Double(1 << min(attempt, 20)))
    }
}
