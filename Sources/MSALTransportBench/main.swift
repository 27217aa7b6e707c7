// `msal-transport-bench`: what waiting on a silent server costs with each MSAL transport.
//
//   msal-transport-bench wait   --transport curl|nio|urlsession [--timeout 2]   request a black hole until the timeout
//   msal-transport-bench cancel --transport curl|nio|urlsession [--after 1]     cancel the request after --after s
//
// The black hole is a socket on 127.0.0.1 that listens and never accepts: the kernel completes the TCP handshake
// and buffers the request, and no answer ever comes. Prints one JSON object: wall and CPU seconds of this process
// (getrusage) for the request, what it ended with, and for `cancel` how long the call took to return once cancelled.
import Foundation
import MSAL
import MSALHTTPTransport
#if NIOTransport
import MSALNIOTransport
#endif
import MSALURLSession
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

/// A listening socket on 127.0.0.1 that never accepts; returns its port.
func blackHole() -> Int {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = listen(fd, 16)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

func option(_ name: String, _ fallback: String) -> String {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}

let mode = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "wait"
let transportName = option("--transport", "curl")
let timeout = Double(option("--timeout", mode == "cancel" ? "30" : "2")) ?? 2
let cancelAfter = Double(option("--after", "1")) ?? 1
let client: any MSALHTTPClient = {
    switch transportName {
    case "urlsession": return MSALURLSessionHTTPClient()
    #if NIOTransport
    case "nio": return MSALNIOHTTPClient.shared
    #endif
    default: return MSALCurlHTTPClient.shared
    }
}()
let port = blackHole()
let request = MSALHTTPRequest(method: "POST", url: URL(string: "http://127.0.0.1:\(port)/common/oauth2/v2.0/token")!,
                              headers: ["Content-Type": "application/x-www-form-urlencoded"],
                              body: Data("grant_type=refresh_token".utf8), timeout: timeout)

let cpuBefore = cpuSeconds()
let started = Date()
let task = Task { () -> String in
    do {
        let response = try await client.send(request)
        return "HTTP \(response.statusCode)"
    } catch is CancellationError {
        return "CancellationError"
    } catch let error as URLError {
        return "URLError \(error.code.rawValue)"
    } catch {
        return String(describing: type(of: error))
    }
}
var afterCancel: Double?
if mode == "cancel" {
    try await Task.sleep(nanoseconds: UInt64(cancelAfter * 1e9))
    let cancelled = Date()
    task.cancel()
    _ = await task.value
    afterCancel = Date().timeIntervalSince(cancelled)
}
let outcome = await task.value
var report: [String: Any] = [
    "mode": mode, "transport": transportName, "timeout": timeout, "outcome": outcome,
    "wall": (Date().timeIntervalSince(started) * 1000).rounded() / 1000,
    "cpu": ((cpuSeconds() - cpuBefore) * 1000).rounded() / 1000,
]
if let afterCancel { report["returnedAfterCancel"] = (afterCancel * 1000).rounded() / 1000 }
let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
print(String(decoding: json, as: UTF8.self))
