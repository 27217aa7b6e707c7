import Foundation

/// The few `--name value` options of the example programs, each with an environment variable fallback.
public struct ExampleArguments: Sendable {
    private let values: [String: String]
    private let flags: Set<String>
    private let environment: [String: String]

    /// Reads `arguments` (without the program name) and the process environment.
    public init(_ arguments: [String] = Array(CommandLine.arguments.dropFirst()),
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                let name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    values[String(name[..<equals])] = String(name[name.index(after: equals)...])
                } else if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") {
                    values[name] = arguments[index + 1]
                    index += 1
                } else {
                    flags.insert(name)
                }
            } else if argument == "-h" {
                flags.insert("help")
            }
            index += 1
        }
        self.values = values
        self.flags = flags
        self.environment = environment
    }

    /// The value of `--name`, else of the environment variable `variable`.
    public func value(_ name: String, env variable: String) -> String? {
        values[name] ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// A list value (comma- or space-separated).
    public func list(_ name: String, env variable: String) -> [String]? {
        value(name, env: variable).map { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
    }
}
