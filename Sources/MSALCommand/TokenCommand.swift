import ArgumentParser
import Foundation
import MSAL
import MSALSupport

/// `msal token`: a token for the signed-in account, without user interaction.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print an access token for the signed-in account (silent; from the cache or by refreshing).",
        discussion: """
        Prints the access token alone on stdout, or with --json one object with access_token, token_type, \
        expires_on, scopes, account and metadata (token_source, cache_refresh_reason, duration_in_cache_ms, \
        duration_in_http_ms; never a refresh token). A valid cached token is returned with no network \
        request. Exits with 3 when the user must sign in again (run `msal login`).

        With --client-secret or --certificate (or MSAL_CLIENT_SECRET / MSAL_CLIENT_CERTIFICATE), prints a token the \
        application gets as itself (client credentials) for --scopes, default https://graph.microsoft.com/.default; \
        the authority must name a tenant. With --managed-identity, prints a token for the machine's managed identity \
        (App Service, Arc, IMDS...) for the resource of --scopes. App tokens are cached in the same file.

        With --chain, the first credential that gives a token for --scopes (default \
        https://management.azure.com/.default): the AZURE_* environment (secret or certificate), workload identity, \
        managed identity, the account signed in with `msal login`, then the Azure CLI's sign-in (a valid token in its \
        own cache, else `az account get-access-token`). The step that answered is printed on stderr, and as `step` \
        with --json.

        With --pop-url, a proof-of-possession token instead: the access token bound to msal's key \
        ($XDG_STATE_HOME/msal/pop-key.pem, RSA-2048, made on first use, mode 0600) and signed into a request for that \
        URL and --pop-method (default GET), with --pop-nonce if the resource gave one (WWW-Authenticate: PoP \
        nonce="..."). It prints the signed request: send it as `Authorization: PoP <value>` with that request only. The \
        bound token is cached under the key; each call signs anew. A sign-in made with --broker gets the token from the \
        identity broker, which signs the request with its own key and keeps the token itself.

        Examples:
          curl -H "Authorization: Bearer $(msal token)" https://graph.microsoft.com/v1.0/me
          curl -H "Authorization: PoP $(msal token --pop-url https://api.contoso.com/orders)" https://api.contoso.com/orders
          msal token --scopes Mail.Read --json
          MSAL_CLIENT_SECRET=... msal token --authority https://login.microsoftonline.com/contoso.onmicrosoft.com
          msal token --chain --scopes https://management.azure.com/.default --json
        """
    )

    @OptionGroup var options: CommonOptions
    @OptionGroup var app: AppTokenOptions

    @Flag(name: .customLong("force-refresh"), help: "Skip the cached access token and redeem the refresh token.")
    var forceRefresh = false

    @Flag(name: .customLong("chain"),
          help: "Take the first credential that gives a token: environment, workload identity, managed identity, msal's sign-in, the Azure CLI's.")
    var chain = false

    @Option(name: .customLong("chain-steps"),
            help: "With --chain, only these steps, in this order (comma-separated): environment, workload-identity, managed-identity, msal-account, azure-cli.")
    var chainSteps: String?

    @Option(name: .customLong("pop-url"),
            help: ArgumentHelp("Get a proof-of-possession token signed into a request for this URL (prints the signed request).", valueName: "url"))
    var popURL: String?

    @Option(name: .customLong("pop-method"), help: ArgumentHelp("With --pop-url, the request's HTTP method. Default: GET.", valueName: "method"))
    var popMethod: String?

    @Option(name: .customLong("pop-nonce"), help: ArgumentHelp("With --pop-url, the nonce the resource gave.", valueName: "nonce"))
    var popNonce: String?

    func validate() throws {
        guard let popURL else {
            if popMethod != nil || popNonce != nil { throw ValidationError("--pop-method and --pop-nonce go with --pop-url.") }
            return
        }
        guard let url = URL(string: popURL), ["https", "http"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
            throw ValidationError("--pop-url takes the http(s) URL of the request to sign, as in: --pop-url https://api.contoso.com/orders")
        }
        if let popMethod, Self.httpMethod(popMethod) == nil {
            throw ValidationError("--pop-method takes one of \(MSALHttpMethod.allCases.map(MSALParameterStringForHttpMethod).joined(separator: ", ")).")
        }
        if let popNonce, popNonce.isEmpty || popNonce.utf8.count > 1024 || popNonce.contains(where: { $0.isNewline }) {
            throw ValidationError("--pop-nonce takes the nonce the resource gave (one line).")
        }
        if chain || app.isRequested || app.managedIdentityId != nil {
            throw ValidationError("--pop-url gets the signed-in account's token; it does not go with --chain or app tokens.")
        }
    }

    static func httpMethod(_ text: String) -> MSALHttpMethod? {
        MSALHttpMethod.allCases.first { MSALParameterStringForHttpMethod($0) == text.uppercased() }
    }

    /// The `kid` of a signed request's header: the key it was signed with.
    static func signingKeyId(_ signedRequest: String) -> String? {
        guard let header = signedRequest.split(separator: ".").first,
              let data = MSALSupport.Base64URL.decode(header), data.count <= 4096,
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let kid = object["kid"] as? String, kid.utf8.count <= 256 else { return nil }
        return kid
    }

    /// The proof-of-possession scheme of `--pop-url`, if given.
    var popScheme: MSALAuthenticationSchemePop? {
        guard let popURL, let url = URL(string: popURL) else { return nil }
        return MSALAuthenticationSchemePop(httpMethod: popMethod.flatMap(Self.httpMethod) ?? .GET, requestUrl: url,
                                           nonce: popNonce, additionalParameters: nil)
    }

    func run() async throws {
        try await CLI.run(options) {
            if chain {
                try await chainToken()
                return
            }
            let factory = ApplicationFactory(options: options)
            if app.isRequested || app.managedIdentityId != nil {
                let result: MSALAppTokenResult
                if let identity = app.managedIdentityId {
                    result = try await factory.managedIdentityToken(identity, scopes: options.explicitScopes,
                                                                    forceRefresh: forceRefresh)
                } else {
                    result = try await factory.appToken(credential: try app.credential(), scopes: options.explicitScopes,
                                                        forceRefresh: forceRefresh)
                }
                if options.wantsJSON {
                    CLI.out(CLI.jsonLine([
                        "access_token": result.accessToken, "token_type": "Bearer", "scopes": result.scopes,
                        "tenant_id": result.tenantId, "token_source": ResultMetadataJSON.tokenSource(result.tokenSource),
                        "metadata": ResultMetadataJSON.object(result.metadata),
                        "expires_on": ExternalNumber.clampedInteger(result.expiresOn.timeIntervalSince1970),
                        "expires_in": max(0, ExternalNumber.clampedInteger(result.expiresOn.timeIntervalSinceNow)),
                    ]))
                } else {
                    CLI.out(result.accessToken)
                }
                return
            }
            let result = try await factory.silentToken(try factory.makeApplication(), forceRefresh: forceRefresh,
                                                       scheme: popScheme)
            if options.wantsJSON {
                var object: [String: Any] = [
                    "access_token": result.accessToken,
                    "token_type": result.authenticationScheme,
                    "scopes": result.scopes,
                    // The same account object as `msal login --json` and `msal accounts --json`.
                    "account": Describe.account(result.account),
                    "tenant_id": result.tenantProfile.tenantId ?? "",
                    "metadata": ResultMetadataJSON.object(result.metadata),
                ]
                // The key that signed: msal's own, or the identity broker's when it signed with its key.
                if popScheme != nil, let keyId = Self.signingKeyId(result.accessToken) { object["key_id"] = keyId }
                Self.addExpiry(result.expiresOn, to: &object)
                CLI.out(CLI.jsonLine(object))
            } else {
                CLI.out(result.accessToken)
            }
        }
    }

    /// `expires_on` (epoch seconds) and `expires_in` of a token, when its expiry is known.
    private static func addExpiry(_ expiresOn: Date?, to object: inout [String: Any]) {
        guard let expiresOn else { return }
        object["expires_on"] = ExternalNumber.clampedInteger(expiresOn.timeIntervalSince1970)
        object["expires_in"] = max(0, ExternalNumber.clampedInteger(expiresOn.timeIntervalSinceNow))
    }

    /// `--chain`: the credential chain's token, and which step gave it.
    private func chainToken() async throws {
        let scopes = options.explicitScopes ?? ["https://management.azure.com/.default"]
        let token = try await MSALCredentialChain(steps: try ChainSteps.parse(chainSteps)).token(scopes: scopes)
        CLI.err("msal: token from the \(token.step.rawValue) step.")
        if options.wantsJSON {
            var object: [String: Any] = [
                "access_token": token.accessToken, "token_type": "Bearer", "scopes": scopes, "step": token.step.rawValue,
            ]
            Self.addExpiry(token.expiresOn, to: &object)
            CLI.out(CLI.jsonLine(object))
        } else {
            CLI.out(token.accessToken)
        }
    }
}

/// The steps `--chain-steps` names.
enum ChainSteps {
    static func name(_ step: MSALCredentialChain.Step) -> String { step.rawValue.replacingOccurrences(of: " ", with: "-") }

    static func parse(_ text: String?) throws -> [MSALCredentialChain.Step] {
        guard let text else { return MSALCredentialChain.Step.allCases }
        var steps: [MSALCredentialChain.Step] = []
        for word in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !word.isEmpty {
            guard let step = MSALCredentialChain.Step.allCases.first(where: { name($0) == word }) else {
                let known = MSALCredentialChain.Step.allCases.map(name).joined(separator: ", ")
                throw ValidationError("--chain-steps: unknown step '\(word.prefix(40))' (known: \(known)).")
            }
            if !steps.contains(step) { steps.append(step) }
        }
        guard !steps.isEmpty else { throw ValidationError("--chain-steps names no step.") }
        return steps
    }
}
