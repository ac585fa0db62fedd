import Signing

/// The sealed bytes one application message becomes: what a relay frame carries.
///
/// HPKE mode auth (the sender's HPKE key authenticates), one message per context.
///
///     envelope  = version (1, = 0x01) | enc (32) | ciphertext (plaintext + 16)
///     plaintext = sender signing key (32) | message id (16) | timestamp (8, u64 BE ms) | body
///     info      = "homebase envelope v1" || sender signing key || recipient signing key
///     aad       = version (the one byte)
///
/// Every failure to open (tampering, wrong key, wrong recipient, wrong sender, unknown version,
/// truncation) is the same `SealingError.openFailed`.
public enum Envelope {
    public static let version: UInt8 = 1
    static let infoLabel = Array("homebase envelope v1".utf8)
    static let streamLabel = Array("homebase stream v1".utf8)
    static let headerBytes = 1 + HPKE.encapsulatedKeyByteCount
    static let innerHeaderBytes = 32 + MessageID.byteCount + 8
    /// Bytes an envelope adds to its body: 1 + 32 + 56 + 16.
    public static let overhead = headerBytes + innerHeaderBytes + HPKE.tagByteCount
    /// The largest body sealed or opened: 1 MiB. Bigger payloads belong in a stream.
    public static let maxBodyBytes = 1 << 20

    /// Seals `body` from `sender` to `recipient`. `now` is milliseconds since the Unix epoch.
    public static func seal(body: some Collection<UInt8>, from sender: DeviceIdentity, to recipient: DeviceRecord,
                            now: UInt64) throws -> SealedMessage {
        try seal(body: body, from: sender, to: recipient, now: now, messageID: .random(), ikmE: nil)
    }

    /// Deterministic variant for vectors: a fixed message id and ephemeral key (never in production).
    package static func seal(body: some Collection<UInt8>, from sender: DeviceIdentity, to recipient: DeviceRecord,
                             now: UInt64, messageID: MessageID, ikmE: [UInt8]?) throws -> SealedMessage {
        guard body.count <= maxBodyBytes else { throw SealingError.tooLarge }
        let context = try HPKE.Sender(recipientKey: recipient.hpkeKey,
                                      info: info(sender: sender.record.signingKey, recipient: recipient.signingKey),
                                      psk: nil, senderKey: sender.hpkeKey, ikmE: ikmE)
        var plaintext = sender.record.signingKey.bytes + messageID.bytes
        plaintext.reserveCapacity(innerHeaderBytes + body.count)
        plaintext.appendBigEndian(now)
        plaintext += body
        defer { wipe(&plaintext) }
        var bytes = [version] + context.encapsulatedKey
        bytes += try context.seal(plaintext, aad: [version])
        return SealedMessage(bytes: bytes, messageID: messageID,
                             streamSecret: try context.export(context: streamLabel, length: 32))
    }

    /// Opens an envelope the relay reported as coming from `sender` (whose record the caller
    /// looked up), then checks it against `replay`. Throws `openFailed` or `replayed`.
    public static func open(_ bytes: some Collection<UInt8>, by recipient: DeviceIdentity, from sender: DeviceRecord,
                            replay: inout ReplayGuard, now: UInt64) throws -> OpenedMessage {
        let b = Array(bytes)
        guard b.count >= overhead, b.count <= overhead + maxBodyBytes, b[0] == version else {
            throw SealingError.openFailed
        }
        let plaintext: [UInt8]
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
        // HPKE auth already proved the sender's HPKE key; this binds the signing key it claims.
        guard plaintext.count >= innerHeaderBytes, plaintext[0..<32].elementsEqual(sender.signingKey.bytes) else {
            throw SealingError.openFailed
        }
        let id = MessageID(bytes: plaintext[32..<48])!
        let timestamp = readBigEndian(plaintext, at: 48, count: 8)
        try replay.accept(id, timestamp: timestamp, now: now)
        return OpenedMessage(body: Array(plaintext[innerHeaderBytes...]), messageID: id, timestamp: timestamp,
                             sender: sender.signingKey, streamSecret: streamSecret)
    }

    static func info(sender: PublicKey, recipient: PublicKey) -> [UInt8] {
        infoLabel + sender.bytes + recipient.bytes
    }
}
