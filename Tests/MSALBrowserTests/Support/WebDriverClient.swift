import Foundation
import MSALLoopback
import MSALTestSupport

/// A failed WebDriver call.
struct WebDriverError: Error, CustomStringConvertible {
    var description: String
    /// chromedriver ended before it listened (see ``ChromeDriver/start(executable:)``).
    var endedBeforeListening = false
}

/// A running `chromedriver`, listening on a loopback port.
final class ChromeDriver: @unchecked Sendable {
    let endpoint: URL
    private let process: Process

    private init(endpoint: URL, process: Process) {
        self.endpoint = endpoint
        self.process = process
    }

    /// Starts `chromedriver` on a port it picks itself (`--port=0`: no port is reserved first and handed over, so
    /// no other listener of the suite can take it in between) and waits until it says which port it listens on and
    /// answers ready there. The wait ends as soon as that holds, or when the process ends; real time only bounds it.
    ///
    /// Under the whole suite's load chromedriver was seen to end with status 1 before it listened (its output, kept
    /// in the error, says why). Such a start is tried again, at most five times, each time on a new port.
    static func start(executable: String) async throws -> ChromeDriver {
        var lastError: (any Error)?
        for _ in 0..<5 {
            do {
                return try await startOnce(executable: executable)
            } catch let error as WebDriverError where error.endedBeforeListening {
                lastError = error
            }
        }
        throw lastError ?? WebDriverError(description: "chromedriver did not start")
    }

    private static func startOnce(executable: String) async throws -> ChromeDriver {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--port=0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let announced = AnnouncedPort()
        let reader = output.fileHandleForReading
        try process.run()
        // Drained on a dispatch thread (never the concurrency pool) until chromedriver closes its output.
        DispatchQueue.global().async {
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                announced.append(chunk)
            }
        }
        try await eventually(within: 120, "chromedriver to announce its port") {
            announced.port != nil || !process.isRunning
        }
        guard let port = announced.port else {
            throw WebDriverError(description: "chromedriver ended before it listened (status \(process.terminationStatus)): "
                                 + announced.output.suffix(300), endedBeforeListening: true)
        }
        let driver = ChromeDriver(endpoint: URL(string: "http://127.0.0.1:\(port)")!, process: process)
        do {
            try await eventually(within: 120, "chromedriver to answer ready on port \(port)") {
                if !process.isRunning { throw WebDriverError(description: "chromedriver ended on port \(port)") }
                guard let status = try? await WebDriverHTTP.call(driver.endpoint, "GET", "/status") else { return false }
                return (status["ready"] as? Bool) == true
            }
        } catch {
            driver.stop()
            throw error
        }
        return driver
    }

    /// Stops the driver process (it does not always heed SIGTERM, so SIGKILL follows).
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<20 where process.isRunning { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// One WebDriver session (W3C WebDriver over HTTP/JSON) of a headless Chromium.
struct WebDriverSession: Sendable {
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"
    let endpoint: URL
    let id: String

    /// Opens a headless Chromium window.
    static func create(driver: ChromeDriver, browserBinary: String?) async throws -> WebDriverSession {
        var options: [String: Any] = [
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--no-default-browser-check", "--no-proxy-server"],
        ]
        if let browserBinary { options["binary"] = browserBinary }
        let body: [String: Any] = ["capabilities": ["alwaysMatch": ["browserName": "chrome", "goog:chromeOptions": options]]]
        let value = try await WebDriverHTTP.call(driver.endpoint, "POST", "/session", body)
        guard let id = value["sessionId"] as? String else {
            throw WebDriverError(description: "no session id in \(value)")
        }
        return WebDriverSession(endpoint: driver.endpoint, id: id)
    }

    /// Loads `url` and waits for the page.
    func navigate(to url: URL) async throws {
        _ = try await call("POST", "/url", ["url": url.absoluteString])
    }

    /// The address of the current page.
    func currentURL() async throws -> String {
        try await callValue("GET", "/url") as? String ?? ""
    }

    /// The element matching `selector`, or nil when there is none.
    func element(_ selector: String) async throws -> String? {
        do {
            let value = try await callValue("POST", "/element", ["using": "css selector", "value": selector])
            return (value as? [String: Any])?[Self.elementKey] as? String
        } catch let error as WebDriverError where error.description.contains("no such element") {
            return nil
        }
    }

    /// Replaces the text of an input.
    func type(_ text: String, into element: String) async throws {
        _ = try await call("POST", "/element/\(element)/clear", [:])
        _ = try await call("POST", "/element/\(element)/value", ["text": text])
    }

    /// Clicks an element (and waits for a navigation it starts).
    func click(_ element: String) async throws {
        _ = try await call("POST", "/element/\(element)/click", [:])
    }

    /// The text of the page body.
    func bodyText() async throws -> String {
        guard let body = try await element("body") else { return "" }
        return try await callValue("GET", "/element/\(body)/text") as? String ?? ""
    }

    /// Closes the browser window and ends the session.
    func delete() async {
        _ = try? await WebDriverHTTP.call(endpoint, "DELETE", "/session/\(id)")
    }

    private func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        try await WebDriverHTTP.call(endpoint, method, "/session/\(id)\(path)", body)
    }

    private func callValue(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        let data = try await WebDriverHTTP.raw(endpoint, method, "/session/\(id)\(path)", body)
        return data["value"] ?? nil
    }
}

/// The JSON transport of WebDriver, over a plain socket: chromedriver writes headers without a space after the
/// colon (`Content-Length:249`), which the Linux URLSession cannot parse.
enum WebDriverHTTP {
    /// Calls a command and returns its `value` object.
    static func call(_ endpoint: URL, _ method: String, _ path: String,
                     _ body: [String: Any]? = nil) async throws -> [String: Any] {
        let object = try await raw(endpoint, method, path, body)
        return (object["value"] ?? nil) as? [String: Any] ?? [:]
    }

    /// Calls a command and returns the whole answer; WebDriver errors are thrown.
    static func raw(_ endpoint: URL, _ method: String, _ path: String,
                    _ body: [String: Any]? = nil) async throws -> [String: Any?] {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(endpoint.port ?? 0)\r\nConnection: close\r\n"
        if body != nil {
            request += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(payload.count)\r\n"
        }
        request += "\r\n" + String(decoding: payload, as: UTF8.self)
        guard let connection = await RawConnection.connect(port: endpoint.port ?? 0) else {
            throw WebDriverError(description: "\(method) \(path): cannot connect to chromedriver")
        }
        defer { connection.close() }
        await connection.send(request)
        let answer = await connection.readResponse(timeout: 120)
        let parts = answer.components(separatedBy: "\r\n\r\n")
        let status = statusCode(answer) ?? 0
        let bodyText = parts.dropFirst().joined(separator: "\r\n\r\n")
        let object = (try? JSONSerialization.jsonObject(with: Data(bodyText.utf8))) as? [String: Any] ?? [:]
        if status != 200 {
            let value = object["value"] as? [String: Any]
            let error = value?["error"] as? String ?? "HTTP \(status)"
            let message = (value?["message"] as? String).map { String($0.prefix(300)) } ?? ""
            throw WebDriverError(description: "\(method) \(path): \(error) \(message)")
        }
        return object.mapValues { Optional($0) }
    }
}

/// The port chromedriver announces on its output ("… started successfully on port N.").
private final class AnnouncedPort: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    private var found: Int?

    var port: Int? { lock.withLock { found } }
    /// What chromedriver wrote until its port was found.
    var output: String { lock.withLock { text } }

    func append(_ chunk: Data) {
        lock.withLock {
            guard found == nil else { return }
            text += String(decoding: chunk, as: UTF8.self)
            guard let range = text.range(of: "started successfully on port ") else { return }
            let digits = text[range.upperBound...].prefix { $0.isNumber }
            if let port = Int(digits), port > 0, text[range.upperBound...].dropFirst(digits.count).first == "." {
                found = port
            }
        }
    }
}
