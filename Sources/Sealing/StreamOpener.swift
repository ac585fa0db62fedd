import Basics
import Signing

/// Opens a streamed reply, strictly in order, and says precisely what went wrong.
///
/// Each chunk is authenticated first (`openFailed`), then placed by its counter against the
/// next expected one: lower is `duplicate`, higher is `dropped` (a gap), the expected one after
/// a higher one was seen is `reordered`, anything after the final chunk is `afterFinal`.
/// A refused chunk is not delivered and does not advance the next expected counter, so later
/// chunks are classified too; only a gap (`dropped`) records the highest counter seen, which
/// makes the expected chunk arriving after it `reordered` (SPEC 5, "Streamed replies"). After
/// any error the stream can no longer be proven complete and callers SHOULD abandon it.
/// `finish()` before the final chunk is `truncated`.
public final class StreamOpener {
    private let keys: StreamKeys
    private var next: UInt64 = 0
    private var highestSeen: UInt64?
    /// True once the final chunk was delivered.
    public private(set) var isFinished = false

    /// Throws `invalidKey` unless `secret` is the 32-byte stream secret.
    public init(secret: SecretBytes) throws {
        keys = try StreamKeys(secret: secret)
    }

    /// Opens one chunk, returning its data and whether it is the final one.
    public func open(_ chunk: some Collection<UInt8>) throws -> (data: [UInt8], isFinal: Bool) {
        let c = Array(chunk)
        guard c.count >= StreamFormat.minChunk, c.count <= StreamFormat.maxChunk else { throw SealingError.openFailed }
        let counter = readBigEndian(c, at: 0, count: StreamFormat.counterBytes)
        let header = c[..<StreamFormat.counterBytes]
        guard var plaintext = AEAD.open(key: keys.key, nonce: keys.nonce(counter),
                                        ciphertext: c[StreamFormat.counterBytes...], aad: header) else {
            throw SealingError.openFailed
        }
        defer { wipe(&plaintext) }
        let flags = plaintext[0]
        let length = Int(readBigEndian(plaintext, at: 1, count: 4))
        // Canonical form only: a known bucket, known flags, zero padding.
        guard StreamFormat.buckets.contains(plaintext.count), flags & ~StreamFormat.finalFlag == 0,
              length <= plaintext.count - StreamFormat.headerBytes,
              plaintext[(StreamFormat.headerBytes + length)...].allSatisfy({ $0 == 0 }) else {
            throw SealingError.openFailed
        }
        try place(counter)
        next += 1
        isFinished = flags & StreamFormat.finalFlag != 0
        return (Array(plaintext[StreamFormat.headerBytes..<(StreamFormat.headerBytes + length)]), isFinished)
    }

    /// Declares the stream over (the transport ended or gave up). Throws `truncated` unless the
    /// final chunk was delivered.
    public func finish() throws {
        guard isFinished else { throw SealingError.truncated }
    }

    /// Classifies an authenticated chunk's counter; returns only when it is the next one in order.
    private func place(_ counter: UInt64) throws {
        if isFinished { throw SealingError.afterFinal }
        if counter < next { throw SealingError.duplicate }
        if counter > next {
            highestSeen = max(highestSeen ?? counter, counter)
            throw SealingError.dropped
        }
        if let highestSeen, highestSeen > counter { throw SealingError.reordered }
    }
}
