import Foundation
#if canImport(Darwin)
import Darwin
#endif

extension stat {
    /// The last modification time: POSIX.1-2008's `st_mtim`, which Darwin names `st_mtimespec` (the package's one
    /// spelling of it; compiled against the Apple surface's Darwin too).
    var modificationTime: timespec {
        #if canImport(Darwin)
        st_mtimespec
        #else
        st_mtim
        #endif
    }
}
