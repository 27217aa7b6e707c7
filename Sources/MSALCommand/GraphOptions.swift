import ArgumentParser
import Foundation
import MSALSupport
import MSALCore

/// The request options of `msal graph`: method, body, headers and paging.
struct GraphOptions: ParsableArguments {
    @Option(name: [.customShort("X"), .customLong("method")],
            help: ArgumentHelp("HTTP method. Default: GET, or POST with a body.", valueName: "method"))
    var method: String?

    @Option(name: .customLong("body"), help: ArgumentHelp("Request body (JSON unless -H sets Content-Type).", valueName: "text"))
    var body: String?

    @Option(name: .customLong("body-file"),
            help: ArgumentHelp("Read the request body from a file, or from stdin with -.", valueName: "file"))
    var bodyFile: String?

    @Option(name: [.customShort("H"), .customLong("header")], parsing: .singleValue,
            help: ArgumentHelp("Add a request header, as 'Name: value' (repeatable; not Authorization).", valueName: "header"))
    var headers: [String] = []

    @Flag(name: .long, help: "Send a proof-of-possession token: a request signed with msal's key for each call (retried once with the resource's nonce on a 401).")
    var pop = false

    @Flag(name: .long, help: "Follow @odata.nextLink (same origin only) and print every page's value as one array.")
    var paginate = false

    /// The largest request body read from a file or stdin.
    static let maximumBodySize = 4 << 20
    /// Headers the tool sets itself.
    static let reservedHeaders: Set<String> = ["authorization", "host", "content-length"]

    /// The method to send, uppercased.
    var resolvedMethod: String {
        (method ?? ((body != nil || bodyFile != nil) ? "POST" : "GET")).uppercased()
    }

    func validate() throws {
        if body != nil, bodyFile != nil { throw ValidationError("Pass either --body or --body-file, not both.") }
        if let method, method.isEmpty || !method.utf8.allSatisfy(Self.isTokenCharacter) {
            throw ValidationError("'\(method)' is not an HTTP method, such as GET, POST, PATCH or DELETE.")
        }
        if paginate, resolvedMethod != "GET" { throw ValidationError("--paginate follows pages of a GET request only.") }
        _ = try parsedHeaders()
    }

    /// The `-H` headers as name and value; a usage error for a malformed or reserved one.
    func parsedHeaders() throws -> [(name: String, value: String)] {
        try headers.map { text in
            guard let colon = text.firstIndex(of: ":") else {
                throw ValidationError("-H '\(text)' is not a header: write it as 'Name: value'.")
            }
            let name = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenCharacter) else {
                throw ValidationError("-H '\(text)': '\(name)' is not a header name.")
            }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
                throw ValidationError("-H \(name): the value holds control characters.")
            }
            guard !Self.reservedHeaders.contains(name.lowercased()) else {
                throw ValidationError("-H \(name) cannot be set: msal sets it (the token goes only in its own Authorization header).")
            }
            return (name, value)
        }
    }

    /// The request body of `--body` or `--body-file` (a file, or stdin for `-`), or nil.
    func requestBody() throws -> Data? {
        if let body { return Data(body.utf8) }
        guard let bodyFile else { return nil }
        let data: Data
        if bodyFile == "-" {
            data = FileHandle.standardInput.readData(ofLength: Self.maximumBodySize + 1)
        } else {
            let url = URL(fileURLWithPath: HomePath.expand(bodyFile))
            guard let read = try? Data(contentsOf: url) else { throw CLIError(message: "Cannot read the body file \(url.path).") }
            data = read
        }
        guard data.count <= Self.maximumBodySize else {
            throw CLIError(message: "The request body is larger than \(Self.maximumBodySize >> 20) MiB.")
        }
        return data
    }

    /// RFC 9110 `tchar`: the characters of a method or header name (the same rule as the challenge parser's).
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        WWWAuthenticateParser.isTokenCharacter(byte)
    }
}
