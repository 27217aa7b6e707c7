/// How the example programs read their inputs beside their command-line options: lists written as one string, and
/// environment variables as fallbacks.
public enum ExampleInput {
    /// The items of `values`, each comma- or space-separated (`--scopes a,b --scopes c`); nil when there are none.
    public static func list(_ values: [String]) -> [String]? {
        let items = values.flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
        return items.isEmpty ? nil : items
    }

    /// The value of the environment variable `name` in `environment`, nil when unset or empty.
    public static func value(_ name: String, in environment: [String: String]) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
