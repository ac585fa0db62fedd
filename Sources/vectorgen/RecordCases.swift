// Records and names that verify but MUST be refused (issue 15, holes 9 and 11): a small-order
// HPKE key in a device record (every seal to it fails), control characters in a device name or
// a join's account name, an account name longer than a device name may be.
import Basics
import Signing

/// A record signed over exactly these fields by the seed `tag`'s key (what anyone can make).
private func signedRecord(_ tag: UInt8, hpke: [UInt8], name: String) throws -> [UInt8] {
    let key = try SigningKey(seed: SecretBytes(fixed(tag)))
    var b: [UInt8] = [1] + key.publicKey.bytes + hpke
    b += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(1_700_000_000_000) >> (56 - 8 * $0)) }
    b += [UInt8(name.utf8.count)] + Array(name.utf8)
    return b + key.sign(Array("homebase device record v1".utf8) + [0] + b)
}

func recordVectorCases() throws -> [VectorCase] {
    let zero = [UInt8](repeating: 0, count: 32)
    // Order 8 (libsodium's blocklist), bit 255 set: X25519 ignores that bit, so must the check.
    var order8 = bytes(fromHex: "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800")!
    order8[31] |= 0x80
    let good = try identity(9, "x").hpkeKey.publicKey.bytes
    func join(_ name: [UInt8]) -> [UInt8] {
        [0x31] + [UInt8](repeating: 0x01, count: 32) + [0, 0, 0, 2, 0xDE, 0xAD] + [UInt8(name.count >> 8), UInt8(name.count & 0xFF)] + name
    }
    return [
        VectorCase(name: "identity-record-small-order-zero", kind: "identity-record", expect: "decode failure",
                   comment: "validly signed, HPKE key all zero (small order): no seal to it can work", payload:
                       try signedRecord(9, hpke: zero, name: "laptop")),
        VectorCase(name: "identity-record-small-order-8", kind: "identity-record", expect: "decode failure",
                   comment: "validly signed, HPKE key of order 8 with bit 255 set (ignored by X25519)", payload:
                       try signedRecord(9, hpke: order8, name: "laptop")),
        VectorCase(name: "identity-record-control-name", kind: "identity-record", expect: "decode failure",
                   comment: "validly signed, the name holds a newline and an escape sequence", payload:
                       try signedRecord(9, hpke: good, name: "laptop\n\u{1b}[2J")),
        VectorCase(name: "msg-join-control-name", kind: "app-message", expect: "invalid value",
                   comment: "a join whose account name holds an escape character", payload: join(Array("ana\u{1b}[31m".utf8))),
        VectorCase(name: "msg-join-long-name", kind: "app-message", expect: "oversize",
                   comment: "a join whose account name is 65 bytes (names are 1 to 64)", payload: join([UInt8](repeating: 0x61, count: 65))),
    ]
}
