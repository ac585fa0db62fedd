import Signing

/// The padded plaintext of an envelope, and the sizes it may take.
///
///     plaintext = sender signing key (32) | message id (16) | timestamp (8, u64 BE ms)
///               | body length b (4, u32 BE) | body (b) | zero padding
///     size      = a bucket: the smallest of 256, 512, ..., 65536 that holds 60 + b,
///                 else the smallest multiple of 65536 that does, up to 1 MiB (or, shaped,
///                 any larger bucket: the receiver checks only that the body fits)
///
/// The relay sees the bucket (envelope = 49 + bucket bytes), never the body length.
enum EnvelopeFormat {
    static let senderKeyBytes = 32
    static let idOffset = 32
    static let timestampOffset = 48
    static let lengthOffset = 56
    /// Bytes before the body: key 32, id 16, timestamp 8, length 4.
    static let headerBytes = 60
    /// Powers of two up to 64 KiB: at most 2x padding and 9 sizes. 256 bytes holds a short
    /// request (196 bytes of body), so short prompts all look the same.
    static let smallBuckets = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
    /// Above 64 KiB, steps of 64 KiB: doubling would waste up to 512 KiB near the top, while a
    /// fixed step wastes less than 64 KiB (under 7% at 1 MiB) and adds only 15 more sizes.
    static let largeStep = 65536
    /// The largest padded plaintext: 1 MiB (16 steps of 64 KiB).
    static let maxPadded = 1 << 20
    /// Every size a padded plaintext may take, ascending (24 of them).
    static let buckets = smallBuckets + Array(stride(from: 2 * largeStep, through: maxPadded, by: largeStep))

    /// The bucket that holds `bodyCount` bytes of body and is at least `floor` (request shaping:
    /// a larger bucket than the body needs, which every receiver accepts), nil beyond `maxPadded`.
    static func bucket(forBody bodyCount: Int, atLeast floor: Int = 0) -> Int? {
        guard bodyCount >= 0 else { return nil }
        return buckets.first { $0 >= headerBytes + bodyCount && $0 >= floor }
    }

    /// The padded plaintext. The caller checked that the body fits (`bucket(forBody:)`).
    static func pad(sender: PublicKey, id: MessageID, timestamp: UInt64, body: some Collection<UInt8>, bucket: Int) -> [UInt8] {
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(bucket)
        plaintext += sender.bytes
        plaintext += id.bytes
        plaintext.appendBigEndian(timestamp)
        plaintext.appendBigEndian(UInt32(body.count))
        plaintext += body
        plaintext += repeatElement(0, count: bucket - plaintext.count)
        return plaintext
    }

    /// The body's range inside an authenticated plaintext, nil unless the plaintext is canonical:
    /// a bucket size, a length that fits, and padding that is all zero.
    static func bodyRange(in plaintext: [UInt8]) -> Range<Int>? {
        guard buckets.contains(plaintext.count) else { return nil }
        let length = Int(readBigEndian(plaintext, at: lengthOffset, count: 4))
        guard length <= plaintext.count - headerBytes else { return nil }
        let end = headerBytes + length
        guard plaintext[end...].allSatisfy({ $0 == 0 }) else { return nil }
        return headerBytes..<end
    }
}
