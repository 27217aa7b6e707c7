import Foundation
import Testing
import MSAL
@testable import MSALCore
import MSALTestSupport

@Suite("client_info")
struct ClientInfoTests {
    private func encode(_ json: String) -> String { Base64URL.encode(Data(json.utf8)) }

    @Test("Decodes uid and utid into the home account id")
    func decodes() throws {
        let info = try ClientInfo(encoded: encode(#"{"uid":"9f4880d8-80ba-4c40-97bc-f7a23c703084","utid":"f645ad92-e38d-4d1a-b510-d1b09a74a8ca","xms_tdbr":"EU"}"#))
        #expect(info.uid == "9f4880d8-80ba-4c40-97bc-f7a23c703084")
        #expect(info.utid == "f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
        #expect(info.homeAccountId == "9f4880d8-80ba-4c40-97bc-f7a23c703084.f645ad92-e38d-4d1a-b510-d1b09a74a8ca")
        #expect(info.claims["xms_tdbr"] == .string("EU"))
    }

    @Test("Keeps the parts as returned, like MSAL Python (no lower-casing)")
    func keepsCase() throws {
        let info = try ClientInfo(encoded: encode(#"{"uid":"ABC-b2c_1_signin","utid":"DEF"}"#))
        #expect(info.homeAccountId == "ABC-b2c_1_signin.DEF")
    }

    @Test("Accepts padded input")
    func padded() throws {
        let encoded = Data(#"{"uid":"u","utid":"t"}"#.utf8).base64EncodedString()
        #expect(try ClientInfo(encoded: encoded).homeAccountId == "u.t")
    }

    @Test("Rejects junk with an invalid-response error", arguments: [
        "%%%", "", Base64URL.encode(Data("[1,2]".utf8)), Base64URL.encode(Data("not json".utf8)),
        Base64URL.encode(Data(#"{"uid":"u"}"#.utf8)), Base64URL.encode(Data(#"{"utid":"t"}"#.utf8)),
        Base64URL.encode(Data(#"{"uid":"","utid":"t"}"#.utf8)), Base64URL.encode(Data(#"{"uid":1,"utid":"t"}"#.utf8)),
    ])
    func rejects(_ encoded: String) {
        let error = #expect(throws: MSALErrorInfo.self) { try ClientInfo(encoded: encoded) }
        #expect(error?.code == .internal)
        #expect(error?.internalCode == .internalErrorInvalidResponse)
    }
}
