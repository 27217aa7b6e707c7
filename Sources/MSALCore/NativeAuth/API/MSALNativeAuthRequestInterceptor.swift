public import Foundation

/// The block an interceptor calls with the headers to add (nil for none), once per request, from any thread.
public typealias MSALNativeAuthRequestInterceptorAddHeaderCompletionBlock = @Sendable ([String: String]?) -> Void

/// Adds the app's own HTTP headers to native authentication's requests (a trace id, an app version for a gateway):
/// ``MSALNativeAuthPublicClientApplicationConfig/requestInterceptor``.
///
/// Header names must start with `x-`; the prefixes `x-ms-`, `x-client-`, `x-broker-` and `x-app-` are MSAL's and the
/// service's, so such headers (and names or values a header cannot carry) are left out, with a warning naming them.
/// A request waits for the completion block at most ``MSALNativeAuthRequestInterceptorTimeout`` seconds (on the
/// application's clock), then goes without the app's headers.
public protocol MSALNativeAuthRequestInterceptor: AnyObject {
    /// Calls `completionBlock` with the headers to add to the request to `requestUrl`.
    func addAdditionalHeaderFields(_ requestUrl: URL?, completionBlock: @escaping MSALNativeAuthRequestInterceptorAddHeaderCompletionBlock)
}

/// How long a request waits for an interceptor's completion block, in seconds.
public let MSALNativeAuthRequestInterceptorTimeout: TimeInterval = 30

/// An interceptor held by a Sendable value; it is called only from the request that asks for headers.
struct NativeAuthInterceptor: @unchecked Sendable {
    let interceptor: any MSALNativeAuthRequestInterceptor

    /// The headers the app adds to the request to `url`, checked; waits for the completion block at most
    /// ``MSALNativeAuthRequestInterceptorTimeout`` seconds on `context`'s clock.
    func headers(for url: URL, context: TokenRequestContext) async -> [String: String] {
        let once = OnceResult<[String: String]?>()
        interceptor.addAdditionalHeaderFields(url) { once.finish(.success($0)) }
        // A block not called at once is waited for, at most the timeout on the application's clock; a cancelled
        // request stops waiting at once (and then fails as cancelled when it is sent).
        let timer: Task<Void, Never>? = once.isFinished ? nil : Task {
            try? await context.clock.sleep(seconds: MSALNativeAuthRequestInterceptorTimeout)
            if !Task.isCancelled, once.finish(.success(nil)) {
                context.log.warning("The request interceptor did not call its completion block; the request goes without its headers.")
            }
        }
        let given = await withTaskCancellationHandler {
            (try? await once.value()) ?? nil
        } onCancel: {
            once.finish(.success(nil))
        }
        timer?.cancel()
        return Self.checked(given ?? [:], log: context.log)
    }

    static let reservedPrefixes = ["x-ms-", "x-client-", "x-broker-", "x-app-"]

    /// The headers an app may add: `x-` names of token characters, not reserved, values without control characters;
    /// at most 32, each value at most 8 KiB. The rest is left out with a warning that names it (never its value).
    static func checked(_ headers: [String: String], log: MSALLog) -> [String: String] {
        var kept: [String: String] = [:]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            let lower = name.lowercased()
            let token = !name.isEmpty && name.utf8.count <= 256
                && name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
            let clean = value.utf8.count <= 8192 && !value.unicodeScalars.contains { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }
            guard token, clean, lower.hasPrefix("x-"), !reservedPrefixes.contains(where: lower.hasPrefix), kept.count < 32 else {
                log.warning("The request interceptor's header '\(String(name.prefix(64)).filter { $0.isASCII && !$0.isNewline })' is left out: only x- names that MSAL does not reserve, with printable values.")
                continue
            }
            kept[name] = value
        }
        return kept
    }
}
