import Basics
import CSodium
import Testing
@testable import Sealing
import Signing

/// The fixed list agrees with libsodium: X25519 with any of its points (bit 255 set or not)
/// fails, and no freshly generated key is on it.
@Test func theSmallOrderListIsExactlyWhatX25519Refuses() throws {
    let scalar = HPKE.PrivateKey.generate()
    for h in smallOrderHex {
        for top in [false, true] {
            var point = try #require(bytes(fromHex: h))
            if top { point[31] |= 0x80 }
            let key = try #require(HPKE.PublicKey(bytes: point))
            #expect(key.hasSmallOrder, "\(h)")
            #expect(throws: SealingError.invalidKey) { try scalar.dh(key) }
        }
    }
    for _ in 0..<64 {
        let key = HPKE.PrivateKey.generate().publicKey
        #expect(!key.hasSmallOrder)
        #expect(throws: Never.self) { try scalar.dh(key) }
    }
    // Neighbours of listed points are ordinary keys.
    var two = [UInt8](repeating: 0, count: 32); two[0] = 9
    #expect(!HPKE.PublicKey(bytes: two)!.hasSmallOrder)
}

/// A device cannot sign a record that others would refuse.
@Test func signingRefusesWhatDecodingRefuses() throws {
    #expect(throws: SealingError.invalidRecord) { try DeviceIdentity.generate(name: "bad\nname", now: 0) }
    #expect(throws: SealingError.invalidRecord) { try DeviceIdentity.generate(name: "\u{1b}[2J", now: 0) }
}
