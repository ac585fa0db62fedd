// X25519 public keys of small order (RFC 7748 section 7; libsodium's blocklist in
// crypto_scalarmult/curve25519/ref10/x25519_ref10.c). Every Diffie-Hellman with one gives the
// all-zero result that `PrivateKey.dh` refuses, so a record naming one can never be sealed to.
// Public keys, so no constant time: an exact comparison of the 255 low bits is enough (bit 255
// is ignored by X25519, RFC 7748 section 5).

extension HPKE.PublicKey {
    /// The u-coordinates of small order (mod p, little-endian): 0, 1, the two points of order 8,
    /// p - 1, p and p + 1 (the last two being 0 and 1 written non-canonically).
    static let smallOrderPoints: [[UInt8]] = [
        [UInt8](repeating: 0, count: 32),
        [1] + [UInt8](repeating: 0, count: 31),
        [0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
         0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00],
        [0x5f, 0x9c, 0x95, 0xbc, 0xa3, 0x50, 0x8c, 0x24, 0xb1, 0xd0, 0xb1, 0x55, 0x9c, 0x83, 0xef, 0x5b,
         0x04, 0x44, 0x5c, 0xc4, 0x58, 0x1c, 0x8e, 0x86, 0xd8, 0x22, 0x4e, 0xdd, 0xd0, 0x9f, 0x11, 0x57],
        [0xec] + [UInt8](repeating: 0xff, count: 30) + [0x7f],
        [0xed] + [UInt8](repeating: 0xff, count: 30) + [0x7f],
        [0xee] + [UInt8](repeating: 0xff, count: 30) + [0x7f],
    ]

    /// True for a key of small order (whatever its bit 255): no DH with it is usable.
    public var hasSmallOrder: Bool {
        var masked = bytes
        masked[31] &= 0x7f
        return HPKE.PublicKey.smallOrderPoints.contains(masked)
    }
}
