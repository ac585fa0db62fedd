import Basics
import Signing

/// Seals a streamed reply chunk by chunk (the side that answers a request). One stream per
/// stream secret, in one direction only: a second sealer on the same secret would reuse nonces.
///
/// A class: copies would reuse counters. Not thread-safe.
public final class StreamSealer {
    /// The padded plaintext sizes a chunk may take (see spec-sealing.md).
    public static let buckets = StreamFormat.buckets
    /// The most data one chunk carries (16,379 bytes).
    public static let maxChunkData = StreamFormat.maxData

    private let keys: StreamKeys
    private var counter: UInt64 = 0
    /// True once the final chunk is sealed; nothing may follow it.
    public private(set) var isFinished = false

    /// Throws `invalidKey` unless `secret` is the 32-byte stream secret.
    public init(secret: SecretBytes) throws {
        keys = try StreamKeys(secret: secret)
    }

    /// Seals one chunk of up to `maxChunkData` bytes (`tooLarge` beyond). `final` ends the stream;
    /// sealing after it throws `afterFinal`. `minBucket` pads to at least that plaintext size
    /// (rounded up to a bucket): constant-size frames for the cadence defence (SPEC 7); every
    /// opener already accepts any bucket with zero padding.
    public func seal(_ data: some Collection<UInt8>, final: Bool = false, minBucket: Int = 0) throws -> [UInt8] {
        guard !isFinished else { throw SealingError.afterFinal }
        guard let bucket = StreamFormat.bucket(for: max(data.count, minBucket - StreamFormat.headerBytes)) else { throw SealingError.tooLarge }
        guard counter < UInt64.max else { throw SealingError.messageLimitReached }
        var plaintext: [UInt8] = [final ? StreamFormat.finalFlag : 0]
        plaintext.reserveCapacity(bucket)
        plaintext.appendBigEndian(UInt32(data.count))
        plaintext += data
        plaintext += repeatElement(0, count: bucket - plaintext.count)
        defer { wipe(&plaintext) }
        var chunk: [UInt8] = []
        chunk.reserveCapacity(StreamFormat.counterBytes + bucket + HPKE.tagByteCount)
        chunk.appendBigEndian(counter)
        chunk += AEAD.seal(key: keys.key, nonce: keys.nonce(counter), plaintext: plaintext, aad: chunk)
        counter += 1
        isFinished = final
        return chunk
    }
}
