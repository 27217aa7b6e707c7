import Foundation
import Testing
@testable import MSAL
import MSALTestSupport

/// The sign-in records as a state machine: every transition, without a file; then the file under its lock, with
/// concurrent writers losing nothing.
@Suite("Sign-in records")
struct SignInRecordsTests {
    static func entry(_ user: String, authority: String = "https://127.0.0.1:8443/contoso.onmicrosoft.com",
                      caFile: String? = "/tmp/emulator-ca.pem") -> SignInRecords.Entry {
        SignInRecords.Entry(username: user, clientId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46", authority: authority, caFile: caFile)
    }
    let adele = entry("adele@contoso.onmicrosoft.com")
    let alex = entry("alex@contoso.onmicrosoft.com")

    func twoSignIns() -> SignInRecords {
        SignInRecords.empty.applying(.signedIn(homeAccountId: "a", entry: adele))
            .applying(.signedIn(homeAccountId: "b", entry: alex))
    }

    @Test func loginRecordsAndActivatesEachSignIn() {
        let one = SignInRecords.empty.applying(.signedIn(homeAccountId: "a", entry: adele))
        #expect(one.active == "a" && one.accounts["a"]?.authority == adele.authority)
        let two = twoSignIns()
        #expect(two.active == "b" && two.accounts.count == 2)
        #expect((two.accounts["b"]?.recency ?? 0) > (two.accounts["a"]?.recency ?? 0))
        // Signing in again replaces the account's record with the new settings.
        let again = two.applying(.signedIn(homeAccountId: "a", entry: Self.entry("adele@contoso.onmicrosoft.com", authority: "https://x/y")))
        #expect(again.active == "a" && again.accounts["a"]?.authority == "https://x/y" && again.accounts.count == 2)
    }

    @Test("Logging out the active account makes the most recent other one active, its record intact")
    func logoutOfTheActiveAccount() {
        let after = twoSignIns().applying(.signedOut(homeAccountId: "b"))
        #expect(after.active == "a" && after.accounts["a"] == twoSignIns().accounts["a"])
        #expect(after.accounts["b"] == nil)
        #expect(after.applying(.signedOut(homeAccountId: "a")) == SignInRecords(active: nil, accounts: [:]))
    }

    @Test func logoutOfAnotherAccountKeepsTheActiveOne() {
        let after = twoSignIns().applying(.signedOut(homeAccountId: "a"))
        #expect(after.active == "b" && after.accounts.keys.sorted() == ["b"])
        // An account with no record: nothing changes.
        #expect(twoSignIns().applying(.signedOut(homeAccountId: "zzz")) == twoSignIns())
    }

    @Test("Switch keeps the account's own record; an unrecorded account is recorded")
    func switchKeepsTheRecord() {
        let defaults = Self.entry("adele@contoso.onmicrosoft.com", authority: "https://login.microsoftonline.com/common", caFile: nil)
        let switched = twoSignIns().applying(.switched(homeAccountId: "a", unrecorded: defaults))
        #expect(switched.active == "a" && switched.accounts["a"]?.authority == adele.authority)
        #expect(switched.accounts["a"]?.caFile == adele.caFile)
        // The most recent is now "a": logging it out goes back to "b".
        #expect(switched.applying(.signedOut(homeAccountId: "a")).active == "b")
        let other = twoSignIns().applying(.switched(homeAccountId: "c", unrecorded: defaults))
        #expect(other.active == "c" && other.accounts["c"]?.authority == defaults.authority)
    }

    @Test("A record whose active pointer names nothing is repaired by the next sign-out")
    func danglingActive() {
        var records = twoSignIns()
        records.active = "gone"
        #expect(records.applying(.signedOut(homeAccountId: "gone")).active == "b")
        // Records of an older file (no recency) still give one answer, the same in every process.
        let old = SignInRecords(active: "x", accounts: ["p": adele, "q": alex, "x": adele])
        #expect(old.applying(.signedOut(homeAccountId: "x")).active == "p")
    }

    @Test func theFileRoundTripsAndConcurrentWritersLoseNothing() async throws {
        let directory = ScratchDirectory.path("sign-ins")
        let file = directory.appendingPathComponent("state/sign-ins.json")
        try SignInRecords.update(file, .signedIn(homeAccountId: "a", entry: adele))
        #expect(SignInRecords.load(file) == SignInRecords.empty.applying(.signedIn(homeAccountId: "a", entry: adele)))
        // 24 writers at once, each adding its own sign-in: every one is there, and the last is active.
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    _ = try? SignInRecords.update(file, .signedIn(homeAccountId: "id-\(index)", entry: Self.entry("u\(index)@x")))
                }
            }
        }
        let all = SignInRecords.load(file)
        #expect(all.accounts.count == 25)
        #expect(Set(all.accounts.values.compactMap(\.recency)).count == 25)   // each one saw the one before it
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("The lock file is never followed through a link")
    func lockFileIsNotFollowed() throws {
        let directory = ScratchDirectory.path("sign-ins-link")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let decoy = directory.appendingPathComponent("decoy")
        try Data("keep".utf8).write(to: decoy)
        let file = directory.appendingPathComponent("sign-ins.json")
        try FileManager.default.createSymbolicLink(atPath: file.path + ".lock", withDestinationPath: decoy.path)
        #expect(throws: ToolSettingsError.self) { try SignInRecords.update(file, .signedOut(homeAccountId: "a")) }
        #expect(try String(contentsOf: decoy, encoding: .utf8) == "keep")
    }
}
