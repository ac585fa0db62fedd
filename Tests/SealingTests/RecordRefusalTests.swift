import Basics
import Testing
@testable import Sealing
import Signing

/// Records that verify but must still be refused: a small-order HPKE key (every seal to it
/// fails) and names that would inject into logs and terminals (issue 15, holes 9 and 11).

/// A record signed by `key` over exactly these fields: what an attacker can make.
func signedRecord(_ key: SigningKey, hpke: [UInt8], name: [UInt8], createdAt: UInt64 = 1) -> [UInt8] {
    var b: [UInt8] = [1] + key.publicKey.bytes + hpke
    b += (0..<8).map { UInt8(truncatingIfNeeded: createdAt >> (56 - 8 * $0)) }
    b += [UInt8(name.count)] + name
    return b + key.sign(Array("homebase device record v1".utf8) + [0] + b)
}

/// The small-order u-coordinates (libsodium's blocklist), as hex, little-endian.
let smallOrderHex = [
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
]

@Test func aRecordWithASmallOrderHPKEKeyIsRefused() throws {
    let key = SigningKey.generate()
    let good = signedRecord(key, hpke: HPKE.PrivateKey.generate().publicKey.bytes, name: Array("laptop".utf8))
    #expect(throws: Never.self) { try DeviceRecord(encoded: good) }
    for h in smallOrderHex {
        var point = try #require(bytes(fromHex: h))
        #expect(throws: SealingError.invalidRecord, "\(h)") {
            try DeviceRecord(encoded: signedRecord(key, hpke: point, name: Array("laptop".utf8)))
        }
        point[31] |= 0x80  // X25519 ignores bit 255: the same point
        #expect(throws: SealingError.invalidRecord, "\(h) with bit 255") {
            try DeviceRecord(encoded: signedRecord(key, hpke: point, name: Array("laptop".utf8)))
        }
    }
}

@Test func aRecordNameWithControlCharactersIsRefused() throws {
    let key = SigningKey.generate()
    let hpke = HPKE.PrivateKey.generate().publicKey.bytes
    for name in ["evil\nhomebase: granted", "\u{1b}[2Jwiped", "tab\there", "del\u{7f}", "c1\u{9b}31m", "\u{202e}txt.exe", "a\u{2028}b"] {
        #expect(throws: SealingError.invalidRecord, "\(name.debugDescription)") {
            try DeviceRecord(encoded: signedRecord(key, hpke: hpke, name: Array(name.utf8)))
        }
    }
    // Names people use still pass: spaces, accents, emoji with joiners.
    for name in ["Ana's laptop", "Grüße ☕", "👨‍👩‍👧 family"] {
        #expect(throws: Never.self) { try DeviceRecord(encoded: signedRecord(key, hpke: hpke, name: Array(name.utf8))) }
    }
}
