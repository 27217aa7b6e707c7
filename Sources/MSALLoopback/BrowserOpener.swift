public import Foundation

/// Shows a URL to the user, normally in their web browser.
public protocol BrowserOpener: Sendable {
    /// Opens `url`. Implementations return once the browser was asked to open it; they do not wait for the
    /// user. Throw when no browser could be started.
    func open(_ url: URL) async throws
}

/// Why ``SystemBrowserOpener`` could not start a browser.
public enum BrowserOpenerError: Error, Sendable, Equatable {
    /// None of the candidate commands could be started (each with the reason).
    case noBrowserStarted([String])
}

/// Opens URLs in the user's browser the way Unix desktop programs do.
///
/// The `BROWSER` environment variable, when set, is a colon-separated list of commands tried in order; in each,
/// `%s` is replaced by the URL (`%%` is a literal `%`), and without `%s` the URL is appended as the last argument.
/// Without `BROWSER`, `xdg-open` is used (`open` on macOS); under Windows Subsystem for Linux (`WSL_DISTRO_NAME` or
/// `WSL_INTEROP` set) Windows' browser is tried first, through `wslview` and then Windows' URL handler
/// (`rundll32.exe url.dll,FileProtocolHandler URL`). Commands are split on spaces and started directly — never
/// through a shell, the URL always one argument — and the opener does not wait for them to exit.
public struct SystemBrowserOpener: BrowserOpener {
    private let environment: [String: String]

    /// Creates an opener that reads `BROWSER` and `PATH` from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The argument vectors that would be tried for `url`, in order.
    public func commands(for url: URL) -> [[String]] {
        let text = url.absoluteString
        if let browser = environment["BROWSER"], !browser.trimmingCharacters(in: .whitespaces).isEmpty {
            return browser.split(separator: ":").compactMap { entry in
                let words = entry.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                guard !words.isEmpty else { return nil }
                var substituted = false
                var argv = words.map { word -> String in
                    let (result, found) = Self.substitute(word, url: text)
                    substituted = substituted || found
                    return result
                }
                if !substituted { argv.append(text) }
                return argv
            }
        }
        #if os(macOS)
        return [["open", text]]
        #else
        if isWSL {
            return [["wslview", text], ["rundll32.exe", "url.dll,FileProtocolHandler", text], ["xdg-open", text]]
        }
        return [["xdg-open", text]]
        #endif
    }

    /// Whether the environment is a Windows Subsystem for Linux distribution.
    public var isWSL: Bool {
        [environment["WSL_DISTRO_NAME"], environment["WSL_INTEROP"]].contains { !($0 ?? "").isEmpty }
    }

    /// Starts the first command that can be started.
    public func open(_ url: URL) async throws {
        var failures: [String] = []
        for argv in commands(for: url) {
            guard let executable = resolve(argv[0]) else {
                failures.append("\(argv[0]): not found")
                continue
            }
            let process = Process()
            process.executableURL = executable
            process.arguments = Array(argv.dropFirst())
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
                return
            } catch {
                failures.append("\(argv[0]): \(error.localizedDescription)")
            }
        }
        throw BrowserOpenerError.noBrowserStarted(failures)
    }

    /// `%s` → the URL, `%%` → `%`; reports whether `%s` occurred.
    static func substitute(_ word: String, url: String) -> (String, Bool) {
        var result = ""
        var found = false
        var iterator = word.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else { result.append(character); continue }
            switch iterator.next() {
            case "s": result += url; found = true
            case "%": result.append("%")
            case let other?: result.append("%"); result.append(other)
            case nil: result.append("%")
            }
        }
        return (result, found)
    }

    /// The executable for `command`: a path as given, else the first match on `PATH`.
    func resolve(_ command: String) -> URL? {
        let files = FileManager.default
        if command.contains("/") {
            return files.isExecutableFile(atPath: command) ? URL(fileURLWithPath: command) : nil
        }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(command)"
            if files.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }
}
