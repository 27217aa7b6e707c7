// Darwin, the C library of Apple's platforms, as far as the package's Darwin-only branches need what Linux's C
// library spells otherwise: so that those branches compile (and run) against the surface. Everything else is
// Linux's own C library, re-exported (Darwin and Glibc declare the same POSIX calls).

@_exported public import Glibc

extension stat {
    /// https://developer.apple.com/documentation/kernel/stat (Darwin's name for POSIX.1-2008's `st_mtim`)
    public var st_mtimespec: timespec {
        get { st_mtim }
        set { st_mtim = newValue }
    }
}
