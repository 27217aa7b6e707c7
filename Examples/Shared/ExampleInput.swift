/// How the example programs read list options: several values, each possibly comma- or space-separated.
/// (The examples read nothing from the environment: only their command-line options choose what they do.)
public enum ExampleInput {
    /// The items of `values`, each comma- or space-separated (`--scopes a,b --scopes c`); nil when there are none.
    public static func list(_ values: [String]) -> [String]? {
        let items = values.flatMap { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
        return items.isEmpty ? nil : items
    }
}
