import COpenSSL

/// The TLS 1.3 suites the own record layer speaks (RFC 8446 appendix B.4), all AEAD through EVP.
enum TLS13Suite: UInt16, CaseIterable, Sendable {
    case aes128GCMSHA256 = 0x1301
    case aes256GCMSHA384 = 0x1302
    case chacha20Poly1305SHA256 = 0x1303

    /// From `SSL_CIPHER_get_id` (0x0300_13xx for the TLS 1.3 suites); nil for any other.
    init?(openSSLCipherID id: UInt) {
        guard id >> 16 == 0x0300 else { return nil }
        self.init(rawValue: UInt16(truncatingIfNeeded: id))
    }

    var keyLength: Int { self == .aes128GCMSHA256 ? 16 : 32 }
    var hashLength: Int { self == .aes256GCMSHA384 ? 48 : 32 }
    static let ivLength = 12
    static let tagLength = 16
    static let maxSecretLength = 48
    static let maxKeyLength = 32

    var digest: OpaquePointer { self == .aes256GCMSHA384 ? EVP_sha384() : EVP_sha256() }
    var cipher: OpaquePointer {
        switch self {
        case .aes128GCMSHA256: return EVP_aes_128_gcm()
        case .aes256GCMSHA384: return EVP_aes_256_gcm()
        case .chacha20Poly1305SHA256: return EVP_chacha20_poly1305()
        }
    }

    /// Records one key may protect before the sender must update it (RFC 8446 section 5.5:
    /// AES-GCM 2^24.5 full-size records; our KeyUpdate goes out at 2^24). ChaCha20-Poly1305's
    /// limit is beyond the 64-bit sequence number.
    var recordsPerKey: UInt64 { self == .chacha20Poly1305SHA256 ? UInt64.max - 1 : 1 << 24 }
}

/// RFC 8446 section 7.1: HKDF-Expand-Label(secret, label, context, length) into `out`
/// (`out.count` is the length; at most the hash's length, the only sizes TLS 1.3 asks for, so
/// HKDF-Expand is one HMAC block). Every intermediate is wiped.
func hkdfExpandLabel(_ suite: TLS13Suite, secret: UnsafeRawBufferPointer, label: StaticString,
                     context: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
                     into out: UnsafeMutableRawBufferPointer) -> Bool {
    let length = out.count
    guard length <= suite.hashLength, context.count <= 255, label.utf8CodeUnitCount + 6 <= 255 else { return false }
    // HkdfLabel: uint16 length, opaque label<7..255> = "tls13 " + label, opaque context<0..255>; then the counter 0x01.
    let infoLength = 2 + 1 + 6 + label.utf8CodeUnitCount + 1 + context.count + 1
    return withUnsafeTemporaryAllocation(byteCount: infoLength + 64, alignment: 8) { tmp -> Bool in
        defer { OPENSSL_cleanse(tmp.baseAddress, tmp.count) }
        let info = tmp.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var i = 0
        func put(_ b: UInt8) { info[i] = b; i += 1 }
        put(UInt8(length >> 8)); put(UInt8(length & 0xff))
        put(UInt8(6 + label.utf8CodeUnitCount))
        for b in "tls13 ".utf8 { put(b) }
        label.withUTF8Buffer { for b in $0 { put(b) } }
        put(UInt8(context.count))
        for b in context { put(b) }
        put(1)
        let block = info + infoLength
        var blockLength: UInt32 = 0
        guard HMAC(suite.digest, secret.baseAddress, Int32(secret.count), info, infoLength, block, &blockLength) != nil,
              Int(blockLength) == suite.hashLength else { return false }
        out.copyMemory(from: UnsafeRawBufferPointer(start: block, count: length))
        return true
    }
}

/// One direction's traffic state, kept in memory of its own (wiped when freed): the current
/// application traffic secret (for KeyUpdate), the key and iv derived from it, the sequence
/// number. RFC 8446 sections 7.2-7.3.
final class TrafficKeys {
    private static let secretOffset = 0, keyOffset = 48, ivOffset = 80, size = 96
    let suite: TLS13Suite
    private let block: UnsafeMutableRawBufferPointer
    var sequence: UInt64 = 0
    /// Which key the loop's shared cipher context holds (AEADContexts): new at every install.
    private(set) var keyID: UInt64 = 0

    init?(_ suite: TLS13Suite, secret: UnsafeRawBufferPointer, keyID: UInt64) {
        guard secret.count == suite.hashLength else { return nil }
        self.suite = suite
        block = .allocate(byteCount: Self.size, alignment: 16)
        block.initializeMemory(as: UInt8.self, repeating: 0)
        UnsafeMutableRawBufferPointer(rebasing: block[0..<secret.count]).copyMemory(from: secret)
        guard derive(keyID: keyID) else { OPENSSL_cleanse(block.baseAddress, Self.size); block.deallocate(); return nil }
    }

    deinit { OPENSSL_cleanse(block.baseAddress, Self.size); block.deallocate() }

    var secret: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: block[0..<suite.hashLength]) }
    var key: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: block[Self.keyOffset..<Self.keyOffset + suite.keyLength]) }
    var iv: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: block[Self.ivOffset..<Self.ivOffset + TLS13Suite.ivLength]) }

    private func derive(keyID: UInt64) -> Bool {
        let s = UnsafeRawBufferPointer(rebasing: block[0..<suite.hashLength])
        guard hkdfExpandLabel(suite, secret: s, label: "key", into: UnsafeMutableRawBufferPointer(rebasing: block[Self.keyOffset..<Self.keyOffset + suite.keyLength])),
              hkdfExpandLabel(suite, secret: s, label: "iv", into: UnsafeMutableRawBufferPointer(rebasing: block[Self.ivOffset..<Self.ivOffset + TLS13Suite.ivLength]))
        else { return false }
        sequence = 0
        self.keyID = keyID
        return true
    }

    /// RFC 8446 section 7.2: application_traffic_secret_N+1 = HKDF-Expand-Label(secret_N,
    /// "traffic upd", "", Hash.length); then a new key and iv, and the sequence back to 0.
    func update(keyID: UInt64) -> Bool {
        let n = suite.hashLength
        return withUnsafeTemporaryAllocation(byteCount: n, alignment: 8) { next -> Bool in
            defer { OPENSSL_cleanse(next.baseAddress, n) }
            guard hkdfExpandLabel(suite, secret: UnsafeRawBufferPointer(rebasing: block[0..<n]), label: "traffic upd", into: next) else { return false }
            UnsafeMutableRawBufferPointer(rebasing: block[0..<n]).copyMemory(from: UnsafeRawBufferPointer(next))
            return derive(keyID: keyID)
        }
    }

    /// RFC 8446 section 5.3: the 64-bit sequence number, big-endian, left-padded to the iv's
    /// length, XORed with the iv.
    func nonce(into out: UnsafeMutableRawBufferPointer) {
        out.copyMemory(from: iv)
        for i in 0..<8 { out[TLS13Suite.ivLength - 1 - i] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(i))) }
    }
}
