import Foundation
@testable import MSALEmulatorCore

/// The emulator's request handling: what any local program (or a browser page) can send to `msal emulator`.
///
/// The input is one or more HTTP/1.1-style requests separated by a line `===`: a request line (`METHOD target`),
/// header lines, an empty line and the body. Each request is turned into an ``EmulatorRequest`` with the same
/// parsing steps as the HTTP responder (`EmulatorResponder`: path segments, query, headers, cookies, host, form
/// body), classified and handled by a fresh emulator core (see ``remember(_:in:)`` for the values a later request can use) (sharing one signing key, so no key is generated per
/// input). Every answer must have a valid status, and a JSON answer must be JSON. `POST /_emulator/keys/rotate` is
/// skipped: it generates an RSA key, which would only slow the fuzzer down.
enum EmulatorFuzzing {
    static let keys: SigningKeys = {
        do { return try SigningKeys() } catch { fatalError("the emulator's signing key could not be made: \(error)") }
    }()

    static func request(_ data: Data) async throws {
        let core = EmulatorCore(config: .default, keys: keys, clock: EmulatorClock(), faults: FaultTable([]))
        let text = String(decoding: data, as: UTF8.self)
        var values: [String: String] = [:]
        for template in text.components(separatedBy: "\n===\n").prefix(8) {
            var message = template
            for (name, value) in values { message = message.replacingOccurrences(of: name, with: value) }
            if message.hasPrefix("BROKER ") {
                try await broker(message, core: core)
                continue
            }
            guard let request = parse(message) else { continue }
            let route = Route.classify(request.segments, query: request.query)
            if case .control(let path) = route, path.first == "keys" { continue }
            let response = await core.handle(route, request)
            try check(response)
            remember(response, in: &values)
        }
    }

    /// A call to the emulated identity broker: `BROKER <method>` then, on the next lines, the request JSON. Every
    /// answer of a known method must be a JSON object; sign-ins are approved for the demo user.
    static func broker(_ message: String, core: EmulatorCore) async throws {
        let firstLine = message.prefix { $0 != "\n" }
        let method = String(firstLine.dropFirst("BROKER ".count))
        let body = Data(message.dropFirst(firstLine.count).utf8)
        let answer = await core.brokerAnswer(method, correlationId: "00000000-0000-0000-0000-000000000000", request: body,
                                             issuerBase: "https://127.0.0.1:8443",
                                             approve: { _ in "adele@contoso.onmicrosoft.com" })
        guard let answer else { return }
        guard (try? JSONSerialization.jsonObject(with: answer)) is [String: Any] else {
            throw FuzzFailure("the emulated broker's answer to \(method) is not a JSON object")
        }
    }

    /// Values of one answer that a later request of the same input can use, so that the fuzzer reaches the sign-in
    /// steps, code redemption and device-code polling: `$CTX` (the pages' hidden `ctx`), `$CODE` (the code of a
    /// redirect), `$DEVICE_CODE` and `$USER_CODE` (a device authorization answer), `$COOKIE` (the session cookie),
    /// and native authentication's `$CONT` (the last continuation token) and `$OTP` (the last code it "mailed").
    static func remember(_ response: EmulatorResponse, in values: inout [String: String]) {
        let body = String(decoding: response.body.prefix(1 << 16), as: UTF8.self)
        if let ctx = value(in: body, after: "name=\"ctx\" value=\"", until: "\"") { values["$CTX"] = ctx }
        for (name, header) in response.headers {
            switch name.lowercased() {
            case "location":
                if let code = value(in: header, after: "code=", until: "&") { values["$CODE"] = code.removingPercentEncoding ?? code }
            case "set-cookie":
                if let cookie = header.split(separator: ";").first { values["$COOKIE"] = String(cookie) }
            default: break
            }
        }
        if let code = value(in: body, after: "name=\"code\" value=\"", until: "\"") { values["$CODE"] = code }
        if let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] {
            if let code = object["device_code"] as? String { values["$DEVICE_CODE"] = code }
            if let code = object["user_code"] as? String { values["$USER_CODE"] = code }
            if let token = object["continuation_token"] as? String { values["$CONT"] = token }
            if let codes = object["codes"] as? [[String: Any]], let code = codes.last?["code"] as? String { values["$OTP"] = code }
        }
    }

    private static func value(in text: String, after prefix: String, until end: Character) -> String? {
        guard let start = text.range(of: prefix)?.upperBound else { return nil }
        return String(text[start...].prefix { $0 != end && $0 != "\n" && $0 != " " })
    }

    /// What the responder builds from a request, or nil when the responder would refuse it before any handler.
    static func parse(_ message: String) -> EmulatorRequest? {
        let normalized = message.replacingOccurrences(of: "\r\n", with: "\n")
        let (head, body) = normalized.range(of: "\n\n").map {
            (String(normalized[..<$0.lowerBound]), String(normalized[$0.upperBound...]))
        } ?? (normalized, "")
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
        guard let requestLine = lines.next() else { return nil }
        let words = requestLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard words.count >= 2 else { return nil }
        let method = String(words[0]).uppercased()
        let target = words[1]
        let pathAndQuery = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let rawPath = String(pathAndQuery[0])
        let rawQuery = pathAndQuery.count > 1 ? pathAndQuery[1] : ""
        guard rawPath.utf8.count <= 4096, rawQuery.utf8.count <= 32_768 else { return nil }
        var headers: [String: String] = [:]
        var count = 0
        while let line = lines.next(), count < 100 {
            count += 1
            let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else { continue }
            headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
        }
        let segments = rawPath.split(separator: "/").prefix(32).map { String($0).removingPercentEncoding ?? String($0) }
        var request = EmulatorRequest(
            method: method, segments: segments, query: EmulatorRequest.parseForm(rawQuery).single, form: [:],
            formLists: [:], headers: headers, cookies: EmulatorRequest.parseCookies(headers["cookie"]), scheme: "https",
            host: EmulatorRequest.sanitizeHost(headers["host"], fallback: "127.0.0.1:44321"))
        if method != "GET", method != "HEAD" {
            request.rawBody = Data(body.utf8.prefix(1 << 20))
            if (headers["content-type"] ?? "").lowercased().contains("application/x-www-form-urlencoded"),
               let text = String(data: request.rawBody, encoding: .utf8) {
                let parsed = EmulatorRequest.parseForm(Substring(text))
                request.form = parsed.single
                request.formLists = parsed.lists
            }
        }
        return request
    }

    static func check(_ response: EmulatorResponse) throws {
        try fuzzCheck((100...599).contains(response.status), "the emulator answered status \(response.status)")
        let contentType = response.headers.first { $0.0.lowercased() == "content-type" }?.1.lowercased() ?? ""
        if contentType.hasPrefix("application/json") {
            try fuzzCheck((try? JSONSerialization.jsonObject(with: response.body, options: [.fragmentsAllowed])) != nil,
                          "the emulator answered invalid JSON with status \(response.status)")
        }
    }
}
