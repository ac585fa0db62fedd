import Basics
import Signing

/// The sealed bytes one application message becomes: what a relay frame carries.
///
/// HPKE mode auth (the sender's HPKE key authenticates), one message per context.
///
///     envelope  = version (1, = 0x01) | enc (32) | ciphertext (bucket + 16)
///     plaintext = sender signing key (32) | message id (16) | timestamp (8, u64 BE ms)
///               | body length (4, u32 BE) | body | zero padding to the bucket (`EnvelopeFormat`)
///     info      = "homebase envelope v1" || sender signing key || recipient signing key
///     aad       = version (the one byte)
///
/// The padding hides the body length from the relay: it sees only the bucket (256, 512, ...,
/// 65536, then multiples of 65536 up to 1 MiB). Every failure to open (tampering, wrong key,
/// wrong recipient, wrong sender, unknown version, truncation, non-zero padding, a length beyond
/// the bucket) is the same `SealingError.openFailed`.
public enum Envelope {
    public static let version: UInt8 = 1
    static let infoLabel = Array("homebase envelope v1".utf8)
    static let streamLabel = Array("homebase stream v1".utf8)
    static let headerBytes = 1 + HPKE.encapsulatedKeyByteCount
    /// Bytes an envelope adds to its padded plaintext: version 1, enc 32, tag 16.
    static let framingBytes = headerBytes + HPKE.tagByteCount
    /// The largest body sealed or opened: 1 MiB less the 60-byte inner header, so that the
    /// padded plaintext is at most 1 MiB. Bigger payloads belong in a stream.
    public static let maxBodyBytes = EnvelopeFormat.maxPadded - EnvelopeFormat.headerBytes

    /// The exact size of the envelope sealing a body of `bodyCount` bytes (49 + its bucket),
    /// nil above `maxBodyBytes`.
    public static func sealedSize(bodyCount: Int) -> Int? {
        EnvelopeFormat.bucket(forBody: bodyCount).map { framingBytes + $0 }
    }

    /// The largest body whose envelope is at most `limit` bytes (0 when none fits). With the
    /// relay's 65,536-byte limit this is 32,708: a 65,536-byte bucket makes a 65,585-byte envelope.
    public static func largestBody(sealedLimit limit: Int) -> Int {
        guard let bucket = EnvelopeFormat.buckets.last(where: { framingBytes + $0 <= limit }) else { return 0 }
        return bucket - EnvelopeFormat.headerBytes
    }

    /// Seals `body` from `sender` to `recipient`. `now` is milliseconds since the Unix epoch.
    /// `bucket`: the padded plaintext is at least this (a bucket, else the next one up), for
    /// request shaping; 0, the default: the smallest bucket that holds the body.
    public static func seal(body: some Collection<UInt8>, from sender: DeviceIdentity, to recipient: DeviceRecord,
                            now: UInt64, bucket: Int = 0) throws -> SealedMessage {
        try seal(body: body, from: sender, to: recipient, now: now, messageID: .random(), ikmE: nil, bucket: bucket)
    }

    /// Bytes of the padded plaintext before the body (sender key, id, timestamp, length): 60.
    public static let innerHeaderBytes = EnvelopeFormat.headerBytes

    /// The largest body a padded plaintext of `bucket` bytes holds.
    public static func bodyRoom(bucket: Int) -> Int { max(0, bucket - innerHeaderBytes) }

    /// Deterministic variant for vectors: a fixed message id and ephemeral key (never in production).
    package static func seal(body: some Collection<UInt8>, from sender: DeviceIdentity, to recipient: DeviceRecord,
                             now: UInt64, messageID: MessageID, ikmE: [UInt8]?, bucket floor: Int = 0) throws -> SealedMessage {
        guard let bucket = EnvelopeFormat.bucket(forBody: body.count, atLeast: floor) else { throw SealingError.tooLarge }
        let context = try HPKE.Sender(recipientKey: recipient.hpkeKey,
                                      info: info(sender: sender.record.signingKey, recipient: recipient.signingKey),
                                      psk: nil, senderKey: sender.hpkeKey, ikmE: ikmE)
        var plaintext = EnvelopeFormat.pad(sender: sender.record.signingKey, id: messageID, timestamp: now,
                                           body: body, bucket: bucket)
        defer { wipe(&plaintext) }
        var bytes = [version] + context.encapsulatedKey
        bytes += try context.seal(plaintext, aad: [version])
        return SealedMessage(bytes: bytes, messageID: messageID,
                             streamSecret: try context.export(context: streamLabel, length: 32))
    }

    /// Opens an envelope the relay reported as coming from `sender` (whose record the caller
    /// looked up), then checks it against `replay`. Throws `openFailed` or `replayed`.
    public static func open(_ bytes: some Collection<UInt8>, by recipient: DeviceIdentity, from sender: DeviceRecord,
                            replay: inout some ReplayChecker, now: UInt64) throws -> OpenedMessage {
        let b = Array(bytes)
        // Only bucket sizes exist: anything else is refused before any public-key work.
        guard b.count > framingBytes, EnvelopeFormat.buckets.contains(b.count - framingBytes), b[0] == version else {
            throw SealingError.openFailed
        }
        var plaintext: [UInt8]
        let streamSecret: SecretBytes
        do {
            let context = try HPKE.Recipient(encapsulatedKey: b[1..<headerBytes], recipientKey: recipient.hpkeKey,
                                             info: info(sender: sender.signingKey, recipient: recipient.record.signingKey),
                                             senderKey: sender.hpkeKey)
            plaintext = try context.open(b[headerBytes...], aad: [version])
            streamSecret = try context.export(context: streamLabel, length: 32)
        } catch {
            throw SealingError.openFailed  // no detail leaves: all failures look alike
        }
        defer { wipe(&plaintext) }
        // HPKE auth already proved the sender's HPKE key; this binds the signing key it claims.
        guard let body = EnvelopeFormat.bodyRange(in: plaintext),
              plaintext[0..<EnvelopeFormat.senderKeyBytes].elementsEqual(sender.signingKey.bytes) else {
            throw SealingError.openFailed
        }
        let id = MessageID(bytes: plaintext[EnvelopeFormat.idOffset..<EnvelopeFormat.timestampOffset])!
        let timestamp = readBigEndian(plaintext, at: EnvelopeFormat.timestampOffset, count: 8)
        try replay.accept(id, timestamp: timestamp, from: sender.signingKey, now: now)
        return OpenedMessage(body: Array(plaintext[body]), messageID: id, timestamp: timestamp,
                             sender: sender.signingKey, streamSecret: streamSecret)
    }

    static func info(sender: PublicKey, recipient: PublicKey) -> [UInt8] {
        infoLabel + sender.bytes + recipient.bytes
    }
}
