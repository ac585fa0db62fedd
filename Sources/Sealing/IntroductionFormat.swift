import Signing

/// The padded plaintext of an introduction, and how it is checked.
///
///     offset     size  field
///     0          4     r = record length (u32 BE), 139..202
///     4          r     the sender's device record (self-signed)
///     4+r        16    message id, random
///     20+r       8     timestamp (ms, the sender's clock)
///     28+r       64    Ed25519 signature by the record's key over `Introduction.signed`
///     92+r       4     b = body length (u32 BE)
///     96+r       b     body
///     96+r+b     ...   zero padding to the bucket (the envelope buckets)
struct IntroductionFormat {
    static let minRecordBytes = DeviceRecord.fixedBytes + 1 + PublicKey.signatureByteCount
    static let maxRecordBytes = DeviceRecord.fixedBytes + DeviceRecord.maxNameBytes + PublicKey.signatureByteCount
    /// Bytes besides the record and the body: lengths 4 + 4, id 16, timestamp 8, signature 64.
    static let overheadBytes = 96

    let record: DeviceRecord
    let id: MessageID
    let timestamp: UInt64
    let signature: [UInt8]
    let body: Range<Int>

    /// The bucket holding a record of `recordCount` and a body of `bodyCount` bytes, nil if none.
    static func bucket(recordCount: Int, bodyCount: Int) -> Int? {
        guard bodyCount >= 0 else { return nil }
        return EnvelopeFormat.buckets.first { $0 >= overheadBytes + recordCount + bodyCount }
    }

    static func pad(record: [UInt8], id: MessageID, timestamp: UInt64, signature: [UInt8],
                    body: [UInt8], bucket: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bucket)
        out.appendBigEndian(UInt32(record.count))
        out += record
        out += id.bytes
        out.appendBigEndian(timestamp)
        out += signature
        out.appendBigEndian(UInt32(body.count))
        out += body
        out += repeatElement(0, count: bucket - out.count)
        return out
    }

    /// Parses an authenticated plaintext; nil unless it is canonical (bucket size, exact
    /// lengths, zero padding) and its record verifies. The signature is checked by the caller.
    init?(_ p: [UInt8]) {
        guard EnvelopeFormat.buckets.contains(p.count) else { return nil }
        let r = Int(readBigEndian(p, at: 0, count: 4))
        guard (Self.minRecordBytes...Self.maxRecordBytes).contains(r), Self.overheadBytes + r <= p.count,
              let record = try? DeviceRecord(encoded: p[4..<(4 + r)]) else { return nil }
        let b = Int(readBigEndian(p, at: 92 + r, count: 4))
        guard b <= p.count - Self.overheadBytes - r else { return nil }
        let end = 96 + r + b
        guard p[end...].allSatisfy({ $0 == 0 }) else { return nil }
        self.record = record
        id = MessageID(bytes: p[(4 + r)..<(20 + r)])!
        timestamp = readBigEndian(p, at: 20 + r, count: 8)
        signature = Array(p[(28 + r)..<(92 + r)])
        body = (96 + r)..<end
    }
}
