import Foundation

/// The times the emulator writes into what it issues, and how it reads them back (see ``EmulatorClock``).
extension EmulatorCore {
    /// The emulated time and the time written for it now (the machine's time), read together.
    var issueTime: (now: Date, stamp: Int) {
        let reading = clock.reading
        return (reading.now, Int(reading.now.timeIntervalSince1970 - reading.offset))
    }

    /// The time written for an emulated instant: the instant minus the clock's offset, so that anything issued
    /// before an advance reads as older by it.
    func stamp(_ emulated: Date) -> Int {
        Int(emulated.timeIntervalSince1970 - clock.offset)
    }

    /// Remembers the clock's offset for a token being issued with id `tokenId` (`uti`, `jti`).
    func recordIssue(_ tokenId: String) {
        let offset = clock.offset
        if offset != 0 { issueOffsets[tokenId] = offset }
    }

    /// The emulated instant of a time the emulator wrote into the token with id `tokenId`: the time plus the
    /// offset when the token was issued.
    func emulated(_ written: Double, tokenId: String?) -> Double {
        written + (tokenId.flatMap { issueOffsets[$0] } ?? 0)
    }

    /// Whether a token the emulator issued is within its time range by the emulated clock (with `skew` of
    /// tolerance before `nbf`).
    func isCurrent(exp: Double, nbf: Double?, tokenId: String?, skew: Double = 0) -> Bool {
        let now = self.now.timeIntervalSince1970
        guard emulated(exp, tokenId: tokenId) > now else { return false }
        if let nbf, emulated(nbf, tokenId: tokenId) > now + skew { return false }
        return true
    }

    /// Whether a client assertion, which a client signs with its own clock, is within its time range by the
    /// emulated time or by the machine's time (a client may follow either), with `skew` of tolerance.
    func assertionIsCurrent(exp: Double, nbf: Double?, skew: Double) -> Bool {
        let reading = clock.reading
        return [reading.now.timeIntervalSince1970, reading.now.timeIntervalSince1970 - reading.offset].contains { now in
            exp + skew > now && (nbf ?? 0) <= now + skew
        }
    }
}
