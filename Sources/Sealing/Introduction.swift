import Basics
import Signing

/// First contact: one application message to a device that does not know us yet.
///
/// An envelope (HPKE auth) needs the recipient to know the sender's HPKE key beforehand, so a
/// host cannot open a `join` from a device it has never seen. An introduction uses HPKE mode
/// **base** to the recipient's HPKE key (known from an invite or a pairing code) and carries the
/// sender's self-signed device record inside, plus an Ed25519 signature by that record's key:
///
///     payload   = 0x03 | enc (32) | ciphertext (bucket + 16)
///     info      = "homebase-introduction-v1" || 0x00 || recipient signing key
///     aad       = 0x03
///     plaintext = see `IntroductionFormat` (record, id, timestamp, signature, body, padding)
///     signed    = "homebase-introduction-v1 signature" || 0x00 || enc || recipient signing key
///                 || message id || timestamp u64 || body length u32 || body
///
/// Base mode alone would let anyone (the relay included) seal to the recipient under any
/// public record; the signature makes the sender's signing key, not the relay, vouch for the
/// content, and binding enc and the recipient stops it being re-sealed to someone else. The
/// opener also requires the record's key to equal the sender the relay authenticated. Every
/// failure is `openFailed`; a replay is `replayed`. Padding and sizes are those of envelopes.
public enum Introduction {
    public static let tag: UInt8 = 0x03
    static let infoLabel = Array("homebase-introduction-v1".utf8) + [0x00]
    static let signatureLabel = Array("homebase-introduction-v1 signature".utf8) + [0x00]
    static let headerBytes = 1 + HPKE.encapsulatedKeyByteCount
    static let framingBytes = headerBytes + HPKE.tagByteCount

    /// Seals `body` from `sender` to the device `toSigningKey` whose HPKE key is `hpkeKey`.
    /// Throws `tooLarge` when record and body do not fit the largest bucket.
    public static func seal(_ body: [UInt8], from sender: DeviceIdentity, toSigningKey recipient: PublicKey,
                            hpkeKey: HPKE.PublicKey, now: UInt64) throws -> [UInt8] {
        try seal(body, from: sender, toSigningKey: recipient, hpkeKey: hpkeKey, now: now, messageID: .random(), ikmE: nil)
    }

    /// Deterministic variant for vectors: fixed message id and ephemeral key (never in production).
    package static func seal(_ body: [UInt8], from sender: DeviceIdentity, toSigningKey recipient: PublicKey,
                             hpkeKey: HPKE.PublicKey, now: UInt64, messageID: MessageID, ikmE: [UInt8]?) throws -> [UInt8] {
        let record = sender.record.encoded
        guard let bucket = IntroductionFormat.bucket(recordCount: record.count, bodyCount: body.count) else {
            throw SealingError.tooLarge
        }
        let context = try HPKE.Sender(recipientKey: hpkeKey, info: infoLabel + recipient.bytes, psk: nil,
                                      senderKey: nil, ikmE: ikmE)
        let signature = sender.signingKey.sign(signed(enc: context.encapsulatedKey, recipient: recipient,
                                                      id: messageID, timestamp: now, body: body))
        var plaintext = IntroductionFormat.pad(record: record, id: messageID, timestamp: now, signature: signature,
                                               body: body, bucket: bucket)
        defer { wipe(&plaintext) }
        return [tag] + context.encapsulatedKey + (try context.seal(plaintext, aad: [tag]))
    }

    /// Opens an introduction the relay reported as sent by `sender`, then checks it against
    /// `replay`. Throws `openFailed` (any malformation, wrong recipient, bad record or
    /// signature, record of another key than `sender`) or `replayed`.
    public static func open(_ payload: [UInt8], by recipient: DeviceIdentity, from sender: PublicKey,
                            replay: inout some ReplayChecker, now: UInt64) throws -> OpenedIntroduction {
        guard payload.count > framingBytes, EnvelopeFormat.buckets.contains(payload.count - framingBytes),
              payload[0] == tag else { throw SealingError.openFailed }
        let enc = Array(payload[1..<headerBytes])
        var plaintext: [UInt8]
        do {
            let context = try HPKE.Recipient(encapsulatedKey: enc, recipientKey: recipient.hpkeKey,
                                             info: infoLabel + recipient.record.signingKey.bytes)
            plaintext = try context.open(payload[headerBytes...], aad: [tag])
        } catch {
            throw SealingError.openFailed
        }
        defer { wipe(&plaintext) }
        guard let f = IntroductionFormat(plaintext), f.record.signingKey == sender else { throw SealingError.openFailed }
        let body = Array(plaintext[f.body])
        let message = signed(enc: enc, recipient: recipient.record.signingKey, id: f.id, timestamp: f.timestamp, body: body)
        guard sender.isValidSignature(f.signature, for: message) else { throw SealingError.openFailed }
        try replay.accept(f.id, timestamp: f.timestamp, from: sender, now: now)
        return OpenedIntroduction(sender: f.record, body: body, messageID: f.id, timestamp: f.timestamp)
    }

    static func signed(enc: [UInt8], recipient: PublicKey, id: MessageID, timestamp: UInt64, body: [UInt8]) -> [UInt8] {
        var out = signatureLabel + enc + recipient.bytes + id.bytes
        out.appendBigEndian(timestamp)
        out.appendBigEndian(UInt32(body.count))
        return out + body
    }
}

/// An opened, verified, non-replayed introduction.
public struct OpenedIntroduction: Sendable {
    /// The sender's self-signed record; its signing key is the sender the relay reported.
    public let sender: DeviceRecord
    public let body: [UInt8]
    public let messageID: MessageID
    /// The sender's clock at sealing (replay protection only, never freshness).
    public let timestamp: UInt64
}
