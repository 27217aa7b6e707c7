import Crypto
import Foundation
import MSALTestSupport

enum SHA256Helper {
    static func digest(_ text: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(text.utf8)))
    }
}
