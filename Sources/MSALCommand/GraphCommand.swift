import ArgumentParser
import Foundation
import MSAL

/// `msal graph [PATH]`: a GET request to Microsoft Graph with a silent token.
struct GraphCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "GET a Microsoft Graph resource with the signed-in account's token and print the JSON.",
        discussion: """
        PATH is relative to the Graph endpoint; v1.0 is added when it names no version. The answer is printed as \
        pretty JSON on stdout; an HTTP error exits with 1 after printing the body.

        Examples:
          msal graph
          msal graph /me/messages?\\$top=5 --scopes Mail.Read
        """
    )

    @Argument(help: "The resource path. Default: /me.")
    var path: String = "/me"

    @OptionGroup var options: CommonOptions

    func run() async throws {
        try await CLI.run(options) {
            guard let url = GraphURL.url(endpoint: options.resolvedGraphEndpoint, path: path) else {
                throw CLIError(message: "Cannot build a URL from \(options.resolvedGraphEndpoint) and \(path).")
            }
            let factory = ApplicationFactory(options: options)
            let httpClient = try factory.makeHTTPClient()
            let result = try await factory.silentToken(try factory.makeApplication(httpClient: httpClient))
            let request = MSALHTTPRequest(method: "GET", url: url,
                                          headers: ["Authorization": "Bearer \(result.accessToken)", "Accept": "application/json"],
                                          timeout: 30)
            // The token goes only to the URL's own origin: a redirect elsewhere is followed without it.
            let response = try await (httpClient ?? MSALDefaultHTTPClient.shared).sendFollowingRedirects(request)
            CLI.out(CLI.prettyBody(response.body))
            guard (200..<300).contains(response.statusCode) else {
                throw CLIError(message: "Microsoft Graph answered HTTP \(response.statusCode) for \(url.path).")
            }
        }
    }
}
