import Basics
import CSodium
import Signing

/// HKDF-SHA256 (RFC 5869) on libsodium's HMAC-SHA256: libsodium 1.0.18 has no HKDF API.
enum HKDF {
    /// SHA-256 output length, HKDF's HashLen (Nh in RFC 9180).
    static let hashLength = 32

    /// HMAC-SHA256(key, parts joined).
    static func hmac(key: [UInt8], _ parts: [UInt8]...) -> [UInt8] {
        ensureSodium()
        var state = crypto_auth_hmacsha256_state()
        defer { sodium_memzero(&state, MemoryLayout<crypto_auth_hmacsha256_state>.size) }
        crypto_auth_hmacsha256_init(&state, key, key.count)
        for part in parts { crypto_auth_hmacsha256_update(&state, part, UInt64(part.count)) }
        var mac = [UInt8](repeating: 0, count: hashLength)
        crypto_auth_hmacsha256_final(&state, &mac)
        return mac
    }

    /// HKDF-Extract(salt, ikm). An empty salt means HashLen zero bytes (RFC 5869 2.2).
    static func extract(salt: [UInt8], ikm: [UInt8]) -> [UInt8] {
        hmac(key: salt.isEmpty ? [UInt8](repeating: 0, count: hashLength) : salt, ikm)
    }

    /// HKDF-Expand(prk, info, length); length at most 255 * HashLen (callers check).
    static func expand(prk: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition(length <= 255 * hashLength)
        var okm: [UInt8] = []
        okm.reserveCapacity(length + hashLength)
        var block: [UInt8] = []
        defer { wipe(&block) }
        var counter: UInt8 = 1
        while okm.count < length {
            block = hmac(key: prk, block, info, [counter])
            okm += block
            counter &+= 1
        }
        let result = Array(okm.prefix(length))
        wipe(&okm)
        return result
    }
}
