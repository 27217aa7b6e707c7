import ArgumentParser
import Foundation
import MSAL

/// `msal graph [PATH]`: a Microsoft Graph request with a silent token.
struct GraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Call Microsoft Graph with the signed-in account's token and print the JSON.",
        discussion: """
        PATH is relative to the Graph endpoint; v1.0 is added when it names no version. The request is a GET, or a \
        POST when a body is given; -X sets any method. A body is sent as JSON unless -H sets another Content-Type. \
        The answer is printed as pretty JSON on stdout; an HTTP error exits with 1 after printing the body (3 when \
        the hint on stderr names a sign-in to run, such as `msal login --scopes Mail.Read` for a 403 or a 401).

        --paginate follows @odata.nextLink and prints one JSON document: the first page's fields with "value" \
        holding the items of every page. A next link to another origin than the Graph endpoint is refused (exit 1). \
        The token is sent only to the Graph endpoint's origin; a redirect elsewhere is followed without it.

        msal declares the cp1 capability (continuous access evaluation; MSAL_CLIENT_CAPABILITIES="" declares none). \
        With --pop, each request carries a proof-of-possession token (`Authorization: PoP <signed request>`, signed \
        with msal's key for that method and URL); a 401 with `WWW-Authenticate: PoP nonce="..."` is answered once \
        with a request signed with that nonce.

        When Graph answers 401 with a claims challenge (the session was revoked or a policy changed), msal gets a fresh token with the challenge's claims \
        and sends the request once more; if that fails too, it exits with 3 and names the `msal login` command.

        Examples (scopes other than {Graph}/.default are your app's: sign in with its --client-id):
          msal graph
          msal graph /users?\\$top=5 --scopes User.ReadBasic.All
          msal graph /users --paginate --scopes User.ReadBasic.All
          msal graph /users?\\$count=true -H 'ConsistencyLevel: eventual' \\
            --scopes User.ReadBasic.All
          msal graph /me/todo/lists --body '{"displayName":"Errands"}' \\
            --scopes Tasks.ReadWrite
        """
    )

    @Argument(help: "The resource path. Default: /me.")
    var path: String = "/me"

    @OptionGroup var request: GraphOptions

    @OptionGroup var options: CommonOptions

    func run() async throws {
        try await CLI.run(options) {
            guard let url = GraphURL.url(endpoint: options.resolvedGraphEndpoint, path: path) else {
                throw CLIError(message: "Cannot build a URL from \(options.resolvedGraphEndpoint) and \(path).")
            }
            guard let origin = URL(string: options.resolvedGraphEndpoint), origin.host != nil else {
                throw CLIError(message: "The Graph endpoint \(options.resolvedGraphEndpoint) is not a URL.")
            }
            let headers = try request.parsedHeaders()
            let body = try request.requestBody()
            let factory = ApplicationFactory(options: options)
            let httpClient = try factory.makeHTTPClient()
            let application = try factory.makeApplication(httpClient: httpClient)
            let result: MSALResult
            do {
                result = try await factory.silentToken(application)
            } catch let error as MSALErrorInfo where error.code == .interactionRequired {
                // No account, or these scopes need a sign-in (consent): name the exact command.
                throw CLIError(message: CLI.oneLine(error.errorDescription) + " Run: "
                               + GraphHints.loginCommand(scopes: options.resolvedScopes), exitCode: CLIExit.interactionRequired)
            }
            let session = GraphSession(application: application, account: result.account, scopes: options.resolvedScopes,
                                       pop: request.pop,
                                       token: result.accessToken,
                                       httpClient: httpClient ?? MSALDefaultHTTPClient.shared)
            if request.paginate {
                try await paginate(session, url: url, origin: origin, headers: headers)
            } else {
                let response = try await session.send(method: request.resolvedMethod, url: url, headers: headers, body: body)
                if !response.body.isEmpty { CLI.out(CLI.prettyBody(response.body)) }
                try check(response, url: url)
            }
        }
    }

    /// Follows `@odata.nextLink` from `url`, then prints the first page with every page's items in `value`.
    private func paginate(_ session: GraphSession, url: URL, origin: URL, headers: [(name: String, value: String)]) async throws {
        var merged: [String: Any]?
        var items: [Any] = []
        var next: URL? = url
        var pages = 0
        while let current = next {
            pages += 1
            guard pages <= GraphPaging.maximumPages else {
                throw CLIError(message: "Stopped after \(GraphPaging.maximumPages) pages.")
            }
            let response = try await session.send(method: "GET", url: current, headers: headers, body: nil)
            guard (200..<300).contains(response.statusCode) else {
                CLI.out(CLI.prettyBody(response.body))
                try check(response, url: current)
                return
            }
            guard let page = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] else {
                throw CLIError(message: "Page \(pages) from Microsoft Graph is not a JSON object; --paginate needs a collection.")
            }
            if merged == nil { merged = page }
            items += page["value"] as? [Any] ?? []
            next = try GraphPaging.nextLink(page, origin: origin)
        }
        var document = merged ?? [:]
        document["@odata.nextLink"] = nil
        document["value"] = items
        CLI.out(CLI.prettyJSON(document))
    }

    /// An HTTP error from Graph: a hint naming what to run on stderr, then exit 1.
    private func check(_ response: MSALHTTPResponse, url: URL) throws {
        guard !(200..<300).contains(response.statusCode) else { return }
        let hint = GraphHints.hint(status: response.statusCode, url: url, scopes: options.resolvedScopes)
        if let hint { CLI.err("hint: " + hint) }
        // A hint that names a sign-in is the user's next step: "interaction required", as for the sign-in path.
        let signIn = hint?.contains("msal login") == true
        throw CLIError(message: "Microsoft Graph answered HTTP \(response.statusCode) for \(url.path).",
                       exitCode: signIn ? CLIExit.interactionRequired : CLIExit.failure)
    }
}
