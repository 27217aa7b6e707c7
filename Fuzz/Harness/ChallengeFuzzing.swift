import Foundation
@testable import MSALCore

/// `WWW-Authenticate` header values, as a protected API (or anything posing as one) sends them.
enum ChallengeFuzzing {
    /// The input as a header value: the parser's bounds hold, every decoded `claims` is a JSON object, the claims
    /// challenge found in a header dictionary is the first one parsed, and writing the challenges back out (values
    /// quoted and escaped) reads back the same challenges.
    static func wwwAuthenticate(_ data: Data) throws {
        let header = String(decoding: data, as: UTF8.self)
        let challenges = MSALWWWAuthenticateParameters.parse(header)
        try fuzzCheck(challenges.count <= WWWAuthenticateParser.maximumChallenges, "more challenges than the bound")
        for challenge in challenges {
            try fuzzCheck(!challenge.scheme.isEmpty && challenge.scheme.utf8.allSatisfy(WWWAuthenticateParser.isTokenCharacter),
                          "a scheme that is not a token")
            try fuzzCheck(challenge.parameters.count <= WWWAuthenticateParser.maximumParameters, "more parameters than the bound")
            try fuzzCheck(challenge.parameters.keys.allSatisfy { $0 == $0.lowercased() && !$0.isEmpty }, "a parameter name not lowercased")
            if let claims = challenge.claims {
                try fuzzCheck(JSONValue.parseObject(Data(claims.utf8)) != nil, "decoded claims that are not a JSON object")
            }
            _ = (challenge.error, challenge.realm, challenge.authorizationURI, challenge.resource, challenge.description)
        }
        let expected = challenges.first(where: \.isClaimsChallenge)?.claims
        try fuzzCheck(MSALWWWAuthenticateParameters.claimsChallenge(fromHeaders: ["www-authenticate": header]) == expected,
                      "claimsChallenge(fromHeaders:) disagrees with parse")
        if let nonce = MSALWWWAuthenticateParameters.popNonce(fromHeaders: ["www-authenticate": header]) {
            try fuzzCheck(challenges.first(where: \.isProofOfPossession)?["nonce"] == nonce, "popNonce disagrees with parse")
            try fuzzCheck(!nonce.isEmpty && nonce.utf8.count <= 1024
                          && !nonce.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "an unsafe PoP nonce")
        }
        let written = write(challenges)
        if written.utf8.count <= WWWAuthenticateParser.maximumHeaderLength {
            try fuzzCheck(MSALWWWAuthenticateParameters.parse(written) == challenges,
                          "the challenges written back read differently")
        }
        try pkeyAuth(header)
    }

    /// The same text as a PKeyAuth challenge, in a token endpoint's header and in a web view's address: bounded, and
    /// its answer (the empty form, which any device gives) is one header line that echoes no quote or control
    /// character from the challenge.
    static func pkeyAuth(_ text: String) throws {
        var challenges: [PKeyAuthChallenge] = []
        if let header = PKeyAuthChallenge(wwwAuthenticate: text) { challenges.append(header) }
        if let url = URL(string: "urn:http-auth:PKeyAuth?" + text), let web = PKeyAuthChallenge(url: url) {
            try fuzzCheck(web.submitURL != nil, "a web view challenge without SubmitUrl was taken")
            challenges.append(web)
        }
        for challenge in challenges {
            try fuzzCheck(challenge.fields.count <= 32, "more PKeyAuth fields than the bound")
            let answer = PKeyAuthResponse.authorization(challenge, audience: URL(string: "https://login.microsoftonline.com/common/oauth2/v2.0/token")!,
                                                        registration: nil, now: FuzzFixtures.now)
            // Compared as scalars: an echoed value that starts with a combining mark joins the quote before it into
            // one Character, which a Character-wise prefix or count would not see as a quote.
            try fuzzCheck(answer.unicodeScalars.starts(with: "PKeyAuth  Context=\"".unicodeScalars),
                          "the empty answer has another form")
            try fuzzCheck(!answer.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F },
                          "the answer carries a control character (a header split)")
            try fuzzCheck(answer.unicodeScalars.filter { $0 == "\"" }.count == 4, "the answer echoes a quote from the challenge")
        }
    }

    /// The challenges as one header value: `scheme token68` or `scheme name="value", ...`, comma-separated.
    static func write(_ challenges: [MSALWWWAuthenticateParameters]) -> String {
        challenges.map { challenge in
            if let token68 = challenge.token68 { return challenge.scheme + " " + token68 }
            let parameters = challenge.parameters.keys.sorted().map { name in
                let value = challenge.parameters[name] ?? ""
                // Escaped scalar by scalar: a backslash followed by a combining mark is one Character, which a
                // Character-wise replacement would leave unescaped.
                var escaped = String.UnicodeScalarView()
                for scalar in value.unicodeScalars {
                    if scalar == "\\" || scalar == "\"" { escaped.append("\\") }
                    escaped.append(scalar)
                }
                return name + "=\"" + String(escaped) + "\""
            }
            return parameters.isEmpty ? challenge.scheme : challenge.scheme + " " + parameters.joined(separator: ", ")
        }.joined(separator: ", ")
    }
}
