package import Foundation

/// Base64url (RFC 4648 §5) as OAuth and JOSE use it: `-` and `_` instead of `+` and `/`, no `=` padding.
package enum Base64URL {
    /// Encodes `data` as base64url without padding.
    package static func encode(_ data: some DataProtocol) -> String {
        var text = Data(data).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-")
        text = text.replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes base64url text, with or without padding. Also accepts the standard alphabet (`+`, `/`), which some
    /// servers use by mistake. Returns nil for anything else, including whitespace and impossible lengths.
    package static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = String(text)
        while base64.hasSuffix("=") { base64.removeLast() }
        guard base64.utf8.allSatisfy(isAlphabet) else { return nil }
        base64 = base64.replacingOccurrences(of: "-", with: "+")
        base64 = base64.replacingOccurrences(of: "_", with: "/")
        switch base64.utf8.count % 4 {
        case 0: break
        case 2: base64 += "=="
        case 3: base64 += "="
        default: return nil
        }
        return Data(base64Encoded: base64)
    }

    private static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
