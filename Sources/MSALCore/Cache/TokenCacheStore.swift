import Foundation
import Logging

/// Keeps the in-memory ``TokenCacheDocument`` in step with an ``MSALTokenCacheStorage``.
///
/// Reads re-parse the stored cache only when its version changed (one `stat` for a file; a lock and a
/// compare in memory). Writes take the storage's exclusive (cross-process) lock, reload if another writer
/// changed the cache, apply the change, and persist atomically before releasing the lock.
///
/// A read outside the lock may meet a file another program is rewriting in place (MSAL for Python truncates
/// and writes): data that is empty or does not parse is read again under the lock, where no cooperating
/// writer is active, before anything is concluded.
///
/// Outside the lock, such data is first read again a few times (20 ms apart): a rewrite in place takes milliseconds,
/// while the lock of a busy shared cache may be held for long. Under the lock, empty or unreadable data is read
/// again until it stays unchanged for a moment (a writer that ignores the lock may be at work; empty data must stay
/// so for 0.8 s): empty data is then an empty cache, and data that is not a JSON object is
/// **set aside, never overwritten**: the storage moves it away (a file
/// becomes `<file>.corrupt-<ms>`), a warning is logged, and the cache starts empty. I/O failures
/// (permissions, disk full) are thrown as ``MSALErrorInfo`` instead.
///
/// Not thread-safe: owned by one actor.
final class TokenCacheStore {
    let storage: any MSALTokenCacheStorage
    let log: MSALLog

    /// How often, and how far apart, unreadable data is read again under the lock before it is set aside.
    static let unreadableRereads = 10
    static let unreadableRereadPause: useconds_t = 100_000
    /// How many of those rereads must find the same empty data before it counts as an empty cache (0.8 s): a writer
    /// that truncated the file and was descheduled before writing must not make this process start from nothing
    /// and replace everything with its own change.
    static let blankConfirmations = 8
    /// Rereads outside the lock of data caught mid-write, before the lock is taken.
    static let lockFreeRereads = 5
    static let lockFreeRereadPause: useconds_t = 20_000

    private var document = TokenCacheDocument()
    /// The storage version `document` reflects; nil when nothing was stored (or the document is stale).
    private var loadedVersion: MSALTokenCacheStorageVersion?
    /// Whether `document` reflects the storage at all (false until the first load, or after a failure).
    private var isLoaded = false

    /// A store that logs to `logger` with ``MSALGlobalConfig/loggerConfig`` as it is now.
    convenience init(storage: any MSALTokenCacheStorage, logger: Logger) {
        self.init(storage: storage, log: MSALLog(logger: logger, settings: MSALLog.Settings(MSALGlobalConfig.loggerConfig)))
    }

    init(storage: any MSALTokenCacheStorage, log: MSALLog) {
        self.storage = storage
        self.log = log
    }

    /// The current document, re-read first if the storage changed since the last read or write.
    func currentDocument() throws -> TokenCacheDocument {
        let version = try storage.currentVersion()
        if isLoaded && version == loadedVersion { return document }
        if case .loaded = try load(trustEmpty: false) { return document }
        // Empty or unreadable outside the lock: perhaps caught mid-write (MSAL for Python rewrites its file in place,
        // in milliseconds). Read again a few times first: the lock of a busy shared cache may be held for long.
        for _ in 0..<Self.lockFreeRereads {
            usleep(Self.lockFreeRereadPause)
            if case .loaded = try load(trustEmpty: false) { return document }
        }
        try storage.withExclusiveAccess { try loadUnderLock() }
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
            if !isLoaded || version != loadedVersion { try loadUnderLock() }
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

    private enum LoadResult {
        case loaded
        /// Empty (or blank) data: a writer may have just truncated the file.
        case suspect(MSALTokenCacheStorageVersion)
        case unreadable(MSALTokenCacheStorageVersion, MSALErrorInfo)
    }

    /// Reads and parses the stored cache; changes nothing unless the result is `.loaded`.
    private func load(trustEmpty: Bool) throws -> LoadResult {
        guard let stored = try storage.read() else {
            document = TokenCacheDocument()
            loadedVersion = nil
            isLoaded = true
            return .loaded
        }
        if !trustEmpty && MSALCacheCodec.isBlank(stored.data) { return .suspect(stored.version) }
        let parsed: TokenCacheDocument
        do {
            parsed = try TokenCacheDocument.parse(stored.data)
        } catch let error as MSALErrorInfo {
            return .unreadable(stored.version, error)
        }
        for warning in parsed.parseWarnings { log.warning("\(warning)") }
        document = parsed
        loadedVersion = stored.version
        isLoaded = true
        return .loaded
    }

    /// Loads under the storage's lock. Empty or unreadable data is read again a few times, in case a writer that
    /// ignores the lock is at work: empty data is taken as an empty cache, and unreadable data is set aside, only
    /// when it stays the same; if it keeps changing, an error is thrown and nothing is moved.
    private func loadUnderLock() throws {
        var previous: MSALTokenCacheStorageVersion?
        var blankRereads = 0
        for attempt in 0...Self.unreadableRereads {
            switch try load(trustEmpty: false) {
            case .loaded:
                return
            case .suspect(let version):
                blankRereads = version == previous ? blankRereads + 1 : 0
                if blankRereads >= Self.blankConfirmations, case .loaded = try load(trustEmpty: true) { return }
                previous = version
                if attempt < Self.unreadableRereads { usleep(Self.unreadableRereadPause) }
            case .unreadable(let version, let error):
                if version == previous {
                    log.warning("The token cache cannot be read: \(error.errorDescription)")
                    try setAsideAndStartEmpty(version)
                    return
                }
                previous = version
                if attempt < Self.unreadableRereads { usleep(Self.unreadableRereadPause) }
            }
        }
        throw MSALErrorInfo.internal(
            .internalErrorUnexpected,
            "The token cache keeps changing while it cannot be read: another program is writing it without the cache lock.")
    }

    private func setAsideAndStartEmpty(_ version: MSALTokenCacheStorageVersion) throws {
        if let place = try storage.setAside(version: version) {
            log.warning("The unreadable token cache was moved aside to \(place); starting with an empty cache.")
        }
        // Whatever is stored now (nothing, or a newer file) is what the document must reflect.
        guard case .loaded = try load(trustEmpty: true) else {
            throw MSALErrorInfo.internal(
                .internalErrorUnexpected, "The token cache storage keeps returning unreadable data.")
        }
    }
}
