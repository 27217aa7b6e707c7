import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import MSALEmulator
import MSALTestSupport

/// Plays the user on the other device: enters the user code on the emulator's `/devicelogin` page, then signs in
/// (or cancels) on the sign-in page, over plain HTTP.
enum DeviceLoginDriver {
    static func approve(_ emulator: IdentityEmulator, userCode: String) async throws {
        let page = try await post(emulator, "/devicelogin", [("step", "code"), ("otc", userCode)])
        _ = try await post(emulator, "/login", [("ctx", ctx(page)), ("step", "signin"), ("username", emulator.username),
                                                ("password", emulator.password), ("action", "signin")])
    }

    static func decline(_ emulator: IdentityEmulator, userCode: String) async throws {
        let page = try await post(emulator, "/devicelogin", [("step", "code"), ("otc", userCode)])
        _ = try await post(emulator, "/login", [("ctx", ctx(page)), ("step", "signin"), ("action", "cancel")])
    }

    private static func ctx(_ page: String) -> String {
        guard let range = page.range(of: "name=\"ctx\" value=\"") else { return "" }
        return String(page[range.upperBound...].prefix { $0 != "\"" })
    }

    private static func post(_ emulator: IdentityEmulator, _ path: String, _ form: [(String, String)]) async throws -> String {
        var request = URLRequest(url: URL(string: emulator.httpURL.absoluteString + path)!)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        request.httpBody = Data(form.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&").utf8)
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (data, _) = try await session.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }
}
