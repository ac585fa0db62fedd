import Basics
import Signing

/// The chunk format of a streamed reply, and the keys derived from the stream secret.
///
///     chunk     = counter (8, u64 BE) | ciphertext (bucket + 16)
///     plaintext = flags (1; bit 0 = final, others 0) | length (4, u32 BE) | data | zero padding
///     nonce     = base_nonce XOR (0^4 || counter as u64 BE)
///     aad       = counter (the same 8 bytes)
///
/// The padded plaintext is exactly one bucket long, so a chunk's size reveals only its bucket.
enum StreamFormat {
    /// Padded plaintext sizes. Powers of two: at most 2x padding, 9 distinct sizes. 64 bytes holds
    /// the few tokens one streaming event carries, so token-by-token output shows one size.
    static let buckets = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]
    static let counterBytes = 8
    static let headerBytes = 1 + 4
    static let finalFlag: UInt8 = 0x01
    /// The most data one chunk carries: the largest bucket less the 5-byte header.
    static let maxData = buckets.last! - headerBytes
    static let minChunk = counterBytes + buckets[0] + HPKE.tagByteCount
    static let maxChunk = counterBytes + buckets.last! + HPKE.tagByteCount

    /// The smallest bucket that holds `dataCount` bytes and the header.
    static func bucket(for dataCount: Int) -> Int? {
        buckets.first { $0 >= dataCount + headerBytes }
    }
}

/// key and base nonce of one stream, from the 32-byte stream secret (an HPKE export):
///
///     prk        = HKDF-Extract(salt = "homebase stream v1", ikm = stream_secret)
///     key        = HKDF-Expand(prk, "homebase stream v1 key", 32)
///     base_nonce = HKDF-Expand(prk, "homebase stream v1 nonce", 12)
package struct StreamKeys {
    package let key: SecretBytes
    package let baseNonce: [UInt8]

    package init(secret: SecretBytes) throws {
        guard secret.count == 32 else { throw SealingError.invalidKey }
        var prk = secret.withUnsafeBytes { HKDF.extract(salt: Array("homebase stream v1".utf8), ikm: Array($0)) }
        defer { wipe(&prk) }
        var key = HKDF.expand(prk: prk, info: Array("homebase stream v1 key".utf8), length: 32)
        defer { wipe(&key) }
        self.key = SecretBytes(key)
        self.baseNonce = HKDF.expand(prk: prk, info: Array("homebase stream v1 nonce".utf8), length: 12)
    }

    func nonce(_ counter: UInt64) -> [UInt8] { counterNonce(base: baseNonce, counter: counter) }
}
