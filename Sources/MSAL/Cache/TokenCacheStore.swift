import Foundation
import Logging

/// Keeps the in-memory ``TokenCacheDocument`` in step with an ``MSALTokenCacheStorage``.
///
/// Reads re-parse the stored cache only when its version changed (one `stat` for a file; a lock and a
/// compare in memory). Writes take the storage's exclusive (cross-process) lock, reload if another writer
/// changed the cache, apply the change, and persist atomically before releasing the lock.
///
/// Stored data that is not a JSON object is **set aside, never overwritten**: the storage moves it away
/// (a file becomes `<file>.corrupt-<ms>`), a warning is logged, and the cache starts empty. I/O failures
/// (permissions, disk full) are thrown as ``MSALErrorInfo`` instead.
///
/// Not thread-safe: owned by one actor.
final class TokenCacheStore {
    let storage: any MSALTokenCacheStorage
    let logger: Logger

    private var document = TokenCacheDocument()
    /// The storage version `document` reflects; nil when nothing was stored (or the document is stale).
    private var loadedVersion: MSALTokenCacheStorageVersion?
    /// Whether `document` reflects the storage at all (false until the first load, or after a failure).
    private var isLoaded = false

    init(storage: any MSALTokenCacheStorage, logger: Logger) {
        self.storage = storage
        self.logger = logger
    }

    /// The current document, re-read first if the storage changed since the last read or write.
    func currentDocument() throws -> TokenCacheDocument {
        let version = try storage.currentVersion()
        if isLoaded && version == loadedVersion { return document }
        if try !load() {
            // Unreadable data: set it aside under the lock (it may have been replaced meanwhile).
            try storage.withExclusiveAccess {
                if try !load() { try setAsideAndStartEmpty() }
            }
        }
        return document
    }

    /// Applies `body` to the current document and persists the result, under the storage's lock.
    ///
    /// When `body` changes nothing, nothing is written. If `body` throws, or persisting fails, the error
    /// propagates and the in-memory document is dropped, so the next read reloads the stored state.
    @discardableResult
    func update<T>(_ body: (TokenCacheDocument) throws -> T) throws -> T {
        try storage.withExclusiveAccess {
            let version = try storage.currentVersion()
            if !isLoaded || version != loadedVersion {
                if try !load() { try setAsideAndStartEmpty() }
            }
            let before = document.changeCount
            do {
                let result = try body(document)
                if document.changeCount != before {
                    loadedVersion = try storage.write(document.serialize())
                }
                return result
            } catch {
                isLoaded = false
                document = TokenCacheDocument()
                throw error
            }
        }
    }

    /// Reads and parses the stored cache. Returns false (changing nothing) when the data is unreadable.
    private func load() throws -> Bool {
        guard let stored = try storage.read() else {
            document = TokenCacheDocument()
            loadedVersion = nil
            isLoaded = true
            return true
        }
        let parsed: TokenCacheDocument
        do {
            parsed = try TokenCacheDocument.parse(stored.data)
        } catch let error as MSALErrorInfo {
            logger.warning("The token cache cannot be read: \(error.errorDescription)")
            unreadableVersion = stored.version
            return false
        }
        for warning in parsed.parseWarnings { logger.warning("\(warning)") }
        document = parsed
        loadedVersion = stored.version
        isLoaded = true
        return true
    }

    private var unreadableVersion: MSALTokenCacheStorageVersion?

    private func setAsideAndStartEmpty() throws {
        if let version = unreadableVersion, let place = try storage.setAside(version: version) {
            logger.warning("The unreadable token cache was moved aside to \(place); starting with an empty cache.")
        }
        unreadableVersion = nil
        // Whatever is stored now (nothing, or a newer file) is what the document must reflect.
        if try !load() {
            throw MSALErrorInfo.internal(
                .internalErrorUnexpected, "The token cache storage keeps returning unreadable data.")
        }
    }
}
