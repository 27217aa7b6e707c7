package import Foundation
import MSALSupport

/// Base64url (RFC 4648 §5) without padding, as the client reads and writes it (`MSALSupport.Base64URL`).
package enum Base64URL {
    /// Encodes `data` as base64url without padding.
    package static func encode(_ data: some DataProtocol) -> String { MSALSupport.Base64URL.encode(data) }

    /// Decodes base64url text, with or without padding (the standard alphabet is accepted too); nil for anything else.
    package static func decode(_ text: some StringProtocol) -> Data? { MSALSupport.Base64URL.decode(text) }
}
