import Foundation
@testable import MSALCore

/// What a hostile sign-in page makes an embedded web view report (EmbeddedWebviewNavigation): navigations to any
/// address, new windows, finished and failed loads, closing.
enum WebviewFuzzing {
    static let redirectURI = "msauth.com.example.app://auth"

    /// The input as events, one a line: a letter for the kind (`n` a navigation of the page, `s` of a frame, `w` to a
    /// new window, `l`/`L` a clicked link in the page/to a new window, `o` `window.open`, `f` a finished load, `e` a
    /// failed load, `c` the user closing, `x` the call cancelled), then an address (for `e`: a domain and a code).
    /// No trap; at most one outcome, and nothing after it; a redirect outcome starts with the redirect URI; the web view
    /// loads only https and `about:` pages; only https or non-http addresses go to the browser; a completion notice
    /// comes with a redirect and a failure notice with a failure.
    static func events(_ data: Data) throws {
        var navigation = EmbeddedWebviewNavigation(redirectURI: redirectURI, correlationId: FuzzFixtures.correlationId)
        var ended = false
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).prefix(64) {
            guard let kind = line.first else { continue }
            let text = String(line.dropFirst())
            let url = URL(string: text)
            let event: EmbeddedWebviewNavigation.Event
            switch kind {
            case "n": event = .navigation(url, target: .mainFrame, linkActivated: false)
            case "s": event = .navigation(url, target: .subframe, linkActivated: false)
            case "w": event = .navigation(url, target: .newWindow, linkActivated: false)
            case "l": event = .navigation(url, target: .mainFrame, linkActivated: true)
            case "L": event = .navigation(url, target: .newWindow, linkActivated: true)
            case "o": event = .newWindow(url, linkActivated: false)
            case "f": event = .finishedLoading(url)
            case "e":
                let parts = text.split(separator: " ", maxSplits: 1)
                let code = parts.count > 1 ? Int(parts[1].prefix(12)) ?? 0 : 0
                event = .failedLoading(NSError(domain: parts.first.map(String.init) ?? "", code: code))
            case "c": event = .userCanceled
            case "x": event = .cancelled
            default: continue
            }
            let step = navigation.handle(event)
            if ended {
                try fuzzCheck(step.outcome == nil && step.notices.isEmpty && step.openInBrowser == nil, "acted after the end")
                if case .navigation = event { try fuzzCheck(step.policy == .cancel, "followed a navigation after the end") }
                continue
            }
            if step.policy == .allow, let url {
                let scheme = url.scheme?.lowercased()
                try fuzzCheck(scheme == "https" || url.absoluteString == "about:blank" || url.absoluteString == "about:srcdoc",
                              "loaded a page that is not https: \(url)")
            }
            if let opened = step.openInBrowser {
                let scheme = opened.scheme?.lowercased() ?? ""
                try fuzzCheck(scheme == "https" || !scheme.hasPrefix("http"), "sent \(opened) to the browser")
                try fuzzCheck(!["javascript", "data", "blob", "file", "about", ""].contains(scheme), "sent \(opened) to another app")
            }
            let completes = step.notices.contains { if case .didComplete = $0 { return true } else { return false } }
            let fails = step.notices.contains { if case .didFail = $0 { return true } else { return false } }
            switch step.outcome {
            case .redirect(let callback)?:
                try fuzzCheck(callback.absoluteString.lowercased().hasPrefix(redirectURI), "ended at \(callback)")
                try fuzzCheck(completes && !fails, "a redirect without its completion notice")
                ended = true
            case .failure?:
                try fuzzCheck(fails && !completes, "a failure without its failure notice")
                ended = true
            case nil:
                try fuzzCheck(!completes && !fails, "an end notice without an end")
            }
            try fuzzCheck(navigation.isFinished == ended, "the machine's end and its steps disagree")
        }
    }
}
