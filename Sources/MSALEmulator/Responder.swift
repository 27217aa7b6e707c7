import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Request context that keeps the channel, so a fault can drop the connection.
struct EmulatorRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Request bodies above 1 MiB are refused.
    var maxUploadSize: Int { 1 << 20 }
}

/// Turns Hummingbird requests into ``EmulatorRequest``s, applies faults, and runs the core's handlers.
struct EmulatorResponder: HTTPResponder {
    typealias Context = EmulatorRequestContext

    let core: EmulatorCore
    let faults: FaultTable
    let scheme: String

    func respond(to request: Request, context: Context) async throws -> Response {
        let port = context.channel.localAddress?.port ?? 0
        let rawPath = request.uri.path
        guard rawPath.utf8.count <= 4096, (request.uri.query?.utf8.count ?? 0) <= 32_768 else {
            return Self.convert(.json(["error": "invalid_request", "error_description": "AADSTS90015: The request URI is too long."], status: 414))
        }
        let segments = rawPath.split(separator: "/").prefix(32).map { String($0).removingPercentEncoding ?? String($0) }
        let query = EmulatorRequest.parseForm(Substring(request.uri.query ?? "")).single
        var headers: [String: String] = [:]
        for field in request.headers.prefix(100) {
            headers[field.name.canonicalName] = field.value
        }
        var emulatorRequest = EmulatorRequest(
            method: request.method.rawValue, segments: segments, query: query, form: [:], formLists: [:], headers: headers,
            cookies: EmulatorRequest.parseCookies(headers["cookie"]), scheme: scheme,
            host: EmulatorRequest.sanitizeHost(headers["host"] ?? request.head.authority, fallback: "127.0.0.1:\(port)")
        )
        if request.method != .get, request.method != .head {
            let body = request.body
            do {
                let buffer = try await body.collect(upTo: context.maxUploadSize)
                emulatorRequest.rawBody = Data(buffer.readableBytesView)
            } catch {
                return Self.convert(.json(["error": "invalid_request", "error_description": "AADSTS90015: The request body is too large."], status: 413))
            }
            if (headers["content-type"] ?? "").lowercased().contains("application/x-www-form-urlencoded"),
               let text = String(data: emulatorRequest.rawBody, encoding: .utf8) {
                let parsed = EmulatorRequest.parseForm(Substring(text))
                emulatorRequest.form = parsed.single
                emulatorRequest.formLists = parsed.lists
            }
        }
        let route = Route.classify(segments, query: query)
        let fault = route.endpoint.flatMap { faults.take(for: $0) }
        if let delay = fault?.latencyMilliseconds, delay > 0 {
            try? await Task.sleep(for: .milliseconds(min(delay, 120_000)))
        }
        if fault?.dropConnection == true {
            context.channel.close(promise: nil)
            return Response(status: .ok)
        }
        var response: EmulatorResponse
        if let refusal = fault?.entraErrorResponse(emulatorRequest, clock: core.clock) {
            response = refusal
        } else if let status = fault?.status, (100...599).contains(status) {
            response = .json([
                "error": status >= 500 ? "server_error" : "temporarily_unavailable",
                "error_description": "AADSTS90033: A transient error has occurred (fault injected by the emulator). Please try again.",
                "error_codes": [90033],
            ], status: status)
        } else {
            response = await core.handle(route, emulatorRequest)
        }
        if let retryAfter = fault?.retryAfter {
            response.headers.append(("Retry-After", String(retryAfter)))
        }
        if fault?.malformedBody == true {
            response.body = Data("{\"token_type\": \"Bearer\", \"access_tok".utf8)
        }
        // The emulator's clock as it writes times into tokens (see EmulatorClock), as Entra's `Date` shows Entra's.
        response.headers.removeAll { $0.0.lowercased() == "date" }
        response.headers.append(("Date", HTTPDateFormat.imfFixdate(core.clock.stampedNow)))
        return Self.convert(response)
    }

    static func convert(_ response: EmulatorResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in response.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        return Response(
            status: HTTPResponse.Status(code: response.status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body))
        )
    }
}

/// Formats HTTP dates (RFC 9110 §5.6.7, IMF-fixdate).
enum HTTPDateFormat {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func imfFixdate(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let dayNumber = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - dayNumber * 86_400
        // Civil date from days since 1970-01-01 (proleptic Gregorian).
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = days[((dayNumber % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[month - 1]) \(year) \(two(secondOfDay / 3600)):\(two(secondOfDay % 3600 / 60)):\(two(secondOfDay % 60)) GMT"
    }
}
