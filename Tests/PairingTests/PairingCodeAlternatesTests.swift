import Foundation
@testable import Pairing
import Sealing
import Signing
import Testing

/// Pairing codes naming several nodes of one relay cluster (SPEC "Alternates"), and the
/// single-URL codes printed before them, which must still parse.
@Suite struct PairingCodeAlternatesTests {
    let inviter = try! DeviceIdentity.generate(name: "workstation", now: 1)
    let nodes = ["wss://node2.relay.example", "wss://node3.relay.example:8443/v1/connect"]

    @Test func aCodeWithAlternatesRoundTripsWithAndWithoutPin() throws {
        for pin in [nil, [UInt8](repeating: 7, count: 32)] {
            let c = PairingCode.issue(relayURL: "wss://relay.example", alternates: nodes, pin: pin, expiresMs: 1_800_000_000_000,
                                      inviter: inviter.record)
            let back = try PairingCode(parsing: c.text)
            #expect(back == c && back.alternates == nodes && back.pin == pin)
            #expect(try PairingCode(parsing: c.text.uppercased().replacingOccurrences(of: "HBPAIR1-", with: "hbpair1-")) == c)
        }
    }

    @Test func noAlternatesIsTheSingleURLEncodingByteForByte() throws {
        let c = PairingCode.issue(relayURL: "wss://relay.example", expiresMs: 1_800_000_000_000, inviter: inviter.record)
        var with = c
        with.alternates = nodes
        #expect(with.text.count > c.text.count)
        with.alternates = []
        #expect(with.text == c.text)
    }

    /// protocol/vectors/pairing-code.txt, as the code before alternates wrote it.
    @Test func anOldSingleURLCodeStillParses() throws {
        let old = "hbpair1-04000001hf7yx3y0m2nvdgectzhevhegvfkf3z0728ejgcsy95a5ytkng25sd8dcpz1cvp73xvwg83rt0m34vyj8khs2jsfvm6"
            + "ygf1pedayyfdgprw35whmk62y5xww3kxes571kt26cmwav60qeqwxxtj2ekkng4yt8hetk4ysjjvxnpjjj0qg02xvq6wst5wqq4sbcc5wjwsbrc5pq0v3578t38ctq3qac6"
        let c = try PairingCode(parsing: old)
        #expect(c.relayURL == "wss://relay.example:443" && c.alternates.isEmpty && c.pin == nil)
        #expect(c.text == old)
    }

    @Test func anAlternatesFlagWithNothingBehindItIsMistyped() throws {
        // Flag bit 1 set on an old code: the checksum is recomputed, so only the layout can refuse it.
        let c = PairingCode.issue(relayURL: "wss://relay.example", expiresMs: 1_800_000_000_000, inviter: inviter.record)
        var b = try #require(Base32.decode(String(c.text.dropFirst(PairingCode.prefix.count))))
        b.removeLast(4)
        b[1] |= 2
        b += PairingCode.checksum(b)
        #expect(throws: PairingError.mistyped) { try PairingCode(parsing: PairingCode.prefix + Base32.encode(b)) }
    }
}
