import Basics
import Testing

@Suite struct HelperTests {
    @Test func hexRoundTrips() {
        let raw: [UInt8] = [0x00, 0x0f, 0xa0, 0xff, 0x7e]
        #expect(hexString(raw) == "000fa0ff7e")
        #expect(bytes(fromHex: "000fa0ff7e") == raw)
        #expect(bytes(fromHex: "000FA0FF7E") == raw)
        #expect(hexString([]) == "")
        #expect(bytes(fromHex: "") == [])
        for bad in ["0", "0g", "+f", " 00", "00:11"] { #expect(bytes(fromHex: bad) == nil, "\(bad) parsed") }
    }

    @Test func shortKeysHaveTheirTwoForms() {
        let key = (0..<32).map { UInt8($0 * 7 & 0xff) }
        #expect(shortKey(key) == String(hexString(key).prefix(8)) + "…")
        // The relay's log form: the first 8 bytes, no ellipsis.
        #expect(shortKey(key, hexDigits: 16, ellipsis: false) == String(hexString(key).prefix(16)))
    }

    @Test func wipeZeroesEveryByte() {
        var secret: [UInt8] = [1, 2, 3, 255]
        wipe(&secret)
        #expect(secret == [0, 0, 0, 0])
        var empty: [UInt8] = []
        wipe(&empty)
        #expect(empty.isEmpty)
    }

    @Test func theClocksTellTime() {
        // 2020-01-01 in Unix ms: a wall clock below it is not the wall clock.
        #expect(wallClockMs() > 1_577_836_800_000)
        let a = monotonicNanos(), b = monotonicNanos()
        #expect(b >= a)
    }
}
