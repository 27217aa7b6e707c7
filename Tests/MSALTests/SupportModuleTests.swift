import Foundation
import MSALSupport
import Testing
@testable import MSALCore
@testable import MSALEmulator
@testable import MSALEmulatorCore
@testable import MSALLoopback
import MSALTestSupport

/// The module the client, the loopback listener and the emulator share: one form decoder whose duplicate-key and
/// malformed-input rules each use states, one base64url, one lock type.
@Suite("Shared support: form coding, base64url, lock")
struct SupportModuleTests {
    // MARK: Form decoding, per use

    @Test("Client (token and authorization answers): the last duplicate wins, malformed escapes are kept as sent")
    func clientRule() {
        let decoded = FormEncoding.decode("a=1&a=2&b=%zz&=x&c&&d=x+y%2B%C3%A9")
        #expect(decoded == ["a": "2", "b": "%zz", "": "x", "c": "", "d": "x y+é"])
    }

    @Test("Loopback redirect: a repeated name, an empty name or a malformed escape refuses the whole redirect")
    func loopbackRule() {
        #expect(FormDecoding.parse("code=a+b%2B&&state=s&flag") == ["code": "a b+", "state": "s", "flag": ""])
        #expect(FormDecoding.parse("") == [:])
        for refused in ["code=1&state=s&code=2", "state=s&state=s", "code=%zz&state=s", "code=1&%zz=2", "=x&code=1",
                        "code=%C3&state=s"] {
            #expect(FormDecoding.parse(Substring(refused)) == nil, "\(refused)")
        }
    }

    @Test("Emulator requests: the first duplicate wins, every value is listed, bad names are skipped, bad values empty")
    func emulatorRule() {
        let (single, lists) = EmulatorRequest.parseForm("scope=a&scope=b&x=%zz&%zz=1&=y&z&step=c+d")
        #expect(single == ["scope": "a", "x": "", "z": "", "step": "c d"])
        #expect(lists == ["scope": ["a", "b"], "x": [""], "z": [""], "step": ["c d"]])
    }

    @Test("Emulator requests: only the first fields are read")
    func emulatorFieldLimit() {
        let text = (0..<(EmulatorRequest.maxFields + 50)).map { "f\($0)=\($0)" }.joined(separator: "&")
        let (single, _) = EmulatorRequest.parseForm(Substring(text))
        #expect(single.count == EmulatorRequest.maxFields)
        #expect(single["f0"] == "0")
        #expect(single["f\(EmulatorRequest.maxFields)"] == nil)
    }

    @Test("Each duplicate-key rule under each malformed-input rule")
    func rulesCombine() {
        let text = "k=1&k=2"
        #expect(FormCoding.decode(text, duplicates: .firstWins, malformed: .reject) == ["k": "1"])
        #expect(FormCoding.decode(text, duplicates: .lastWins, malformed: .skip) == ["k": "2"])
        #expect(FormCoding.decode(text, duplicates: .reject, malformed: .keepAsSent) == nil)
        #expect(FormCoding.decode("k=%zz", duplicates: .reject, malformed: .keepAsSent) == ["k": "%zz"])
        #expect(FormCoding.decode("k=%zz", duplicates: .reject, malformed: .skip) == ["k": ""])
        #expect(FormCoding.decode("k=%zz", duplicates: .lastWins, malformed: .reject) == nil)
        #expect(FormCoding.pairs("k=1&k=2&j", malformed: .reject)?.map { "\($0.name)=\($0.value)" } == ["k=1", "k=2", "j="])
    }

    @Test("Encoding escapes all but the unreserved characters and decodes back to the same pairs")
    func encodeRoundTrip() throws {
        let pairs = [("a b", "é&=+"), ("redirect_uri", "http://localhost:8400/cb?x=1"), ("empty", ""), ("t", "-._~")]
        let encoded = FormCoding.encode(pairs)
        #expect(encoded.hasPrefix("a%20b=%C3%A9%26%3D%2B&redirect_uri=http%3A%2F%2Flocalhost%3A8400%2Fcb%3Fx%3D1&"))
        let decoded = try #require(FormCoding.pairs(encoded, malformed: .reject))
        #expect(decoded.map(\.name) == pairs.map(\.0))
        #expect(decoded.map(\.value) == pairs.map(\.1))
        // The emulator's query strings use the same escaping (non-ASCII letters included).
        #expect(URLText.query(pairs) == encoded)
        #expect(FormEncoding.encode(pairs) == encoded)
    }

    // MARK: Base64url

    @Test("Base64url round trips for every length and both alphabets' special characters")
    func base64URLRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let encoded = MSALSupport.Base64URL.encode(data)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(MSALSupport.Base64URL.decode(encoded) == data)
            #expect(MSALSupport.Base64URL.decode(data.base64EncodedString()) == data)
        }
        #expect(MSALSupport.Base64URL.encode(Data([0xFB, 0xFF])) == "-_8")
        #expect(MSALSupport.Base64URL.decode("-_8") == Data([0xFB, 0xFF]))
        #expect(MSALSupport.Base64URL.decode("YQ==") == Data("a".utf8))
    }

    @Test("Base64url refuses bad input", arguments: ["Y", "YWJjZ", "a b", "YQ\n", "é", "YQ=a", "Y*Q", "%59Q"])
    func base64URLRejects(_ text: String) {
        #expect(MSALSupport.Base64URL.decode(text) == nil)
    }

    @Test("The client and the emulator read base64url with the shared implementation")
    func oneBase64URL() throws {
        #expect(MSALEmulator.Base64URL.self == MSALSupport.Base64URL.self)
        #expect(MSALEmulator.Base64URL.decode("a b") == nil)
        #expect(MSALCore.Base64URL.decode("a b") == nil)
        let random = MSALEmulator.Base64URL.random(bytes: 24)
        #expect(try #require(MSALCore.Base64URL.decode(random)).count == 24)
        let segment = MSALEmulator.Base64URL.encode(json: ["b": 1, "a": "x"])
        #expect(MSALCore.Base64URL.decode(segment) == Data(#"{"a":"x","b":1}"#.utf8))
    }

    // MARK: Lock

    @Test("LockedBox: concurrent increments from many threads are never lost")
    func lockedBoxUnderContention() async {
        let box = MSALSupport.LockedBox(0)
        let threads = 8
        let perThread = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<perThread { box.withLock { $0 += 1 } }
        }
        #expect(box.get() == threads * perThread)

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads {
                group.addTask { for _ in 0..<perThread { box.withLock { $0 -= 1 } } }
            }
        }
        #expect(box.get() == 0)
        box.set(41)
        #expect(box.withLock { value -> Int in value += 1; return value } == 42)
    }

    @Test("LockedBox: a throwing body leaves the value as it changed it and releases the lock")
    func lockedBoxThrowing() {
        struct Refused: Error {}
        let box = MSALSupport.LockedBox([1])
        #expect(throws: Refused.self) {
            try box.withLock { list in
                list.append(2)
                throw Refused()
            }
        }
        #expect(box.get() == [1, 2])
        box.withLock { $0.append(3) }
        #expect(box.get() == [1, 2, 3])
    }
}

@Suite("HomePath")
struct HomePathTests {
    @Test func tildeIsTheGivenHome() {
        #expect(HomePath.expand("~", home: "/home/ada") == "/home/ada")
        #expect(HomePath.expand("~/cache/x.json", home: "/home/ada") == "/home/ada/cache/x.json")
        #expect(HomePath.expand("/etc/x", home: "/home/ada") == "/etc/x")
        #expect(HomePath.expand("a/~/b", home: "/home/ada") == "a/~/b")
        #expect(HomePath.expand("~/x", home: "") == ("~/x" as NSString).expandingTildeInPath)
    }
}
