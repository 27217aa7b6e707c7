import Foundation
import MSALLoopback

/// What a user pastes back at the end of a paste-back sign-in (`PastedRedirect`).
enum PastedRedirectFuzzing {
    static let redirectURIs = ["http://localhost:51234", "http://127.0.0.1:8400/callback", "http://[::1]:9000/"]

    /// The input as pasted text against three redirect URIs: never a trap; an accepted address carries exactly this
    /// sign-in's state and a code or an error, and parses the same way twice.
    static func check(_ data: Data) throws {
        let text = String(decoding: data, as: UTF8.self)
        for redirectURI in redirectURIs {
            guard let parameters = try? PastedRedirect.parse(text, redirectURI: redirectURI, state: FuzzFixtures.state) else {
                continue
            }
            try fuzzCheck(parameters["state"] == FuzzFixtures.state, "accepted another state")
            try fuzzCheck(parameters["code"] != nil || parameters["error"] != nil, "accepted an address without code or error")
            try fuzzCheck(text.utf8.count <= PastedRedirect.maximumLength, "accepted an over-long paste")
            let again = try? PastedRedirect.parse(text, redirectURI: redirectURI, state: FuzzFixtures.state)
            try fuzzCheck(again == parameters, "parsed differently twice")
            try fuzzCheck((try? PastedRedirect.parse(text, redirectURI: redirectURI, state: FuzzFixtures.state + "x")) == nil,
                          "accepted for a different state")
        }
    }
}
