// part (0x40): one piece of an encoded message too large for one sealed frame. Each part is
// sealed and sent on its own; the receiver reassembles the pieces and decodes the result.
//
//   message id 16 | index u16 | count u16 | total length u32 | bytes (rest)
//
// Rules checked on decode: 1 <= count <= max(1, total), index < count, bytes <= total.
// A reassembled message MUST NOT itself be a part.
import RelayWire

extension AppMessage {
    /// A piece of a split message.
    public struct Part: Equatable, Sendable, BodyCodable {
        /// Chosen at random by the sender; the same for every part of one message.
        public var messageID: Bytes16
        /// 0-based position.
        public var index: UInt16
        /// How many parts the message has.
        public var count: UInt16
        /// Length of the whole encoded message.
        public var totalLength: UInt32
        public var bytes: [UInt8]
        public init(messageID: Bytes16, index: UInt16, count: UInt16, totalLength: UInt32, bytes: [UInt8]) {
            self.messageID = messageID; self.index = index; self.count = count
            self.totalLength = totalLength; self.bytes = bytes
        }

        func validate() throws(WireError) {
            guard count >= 1, Int(count) <= max(1, Int(totalLength)), index < count else {
                throw .badPartIndex(index: Int(index), count: Int(count))
            }
            guard bytes.count <= Int(totalLength) else {
                throw .tooLarge(field: "part bytes", length: bytes.count, limit: Int(totalLength))
            }
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            try validate()
            w.fixed(messageID); w.u16(index); w.u16(count); w.u32(totalLength); w.raw(bytes)
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> Part {
            let part = Part(messageID: try r.fixed("message id"), index: try r.u16("part index"),
                            count: try r.u16("part count"), totalLength: try r.u32("total length"),
                            bytes: try r.rest(limit: .max, "part bytes"))
            try part.validate()
            return part
        }
    }
}

/// Cuts an encoded message into parts of at most `maxPartPayload` bytes each.
public struct Splitter: Sendable {
    /// Largest `bytes` of one part. Choose it so that one sealed `part` message fits
    /// `Limits.maxSealed`: envelopes are padded to size buckets, so take the largest body a
    /// sealed frame can carry (Sealing's `Envelope.largestBody(sealedLimit:)`, 32,708 bytes for
    /// 65,536) and subtract `Limits.partOverhead` (25 bytes, the part's type byte included).
    public let maxPartPayload: Int

    /// `maxPartPayload` is clamped to at least 1.
    public init(maxPartPayload: Int) { self.maxPartPayload = max(1, maxPartPayload) }

    /// The parts, in order. An empty message is one empty part. Throws if the message needs
    /// more than 65,535 parts or is longer than a u32 can say.
    public func split(_ message: [UInt8], messageID: Bytes16) throws(WireError) -> [AppMessage.Part] {
        guard message.count <= Int(UInt32.max) else {
            throw .tooLarge(field: "message", length: message.count, limit: Int(UInt32.max))
        }
        let count = max(1, (message.count + maxPartPayload - 1) / maxPartPayload)
        guard count <= Int(UInt16.max) else { throw .tooLarge(field: "part count", length: count, limit: Int(UInt16.max)) }
        return (0..<count).map { i in
            let lo = i * maxPartPayload, hi = min(message.count, lo + maxPartPayload)
            return AppMessage.Part(messageID: messageID, index: UInt16(i), count: UInt16(count),
                                   totalLength: UInt32(message.count), bytes: Array(message[lo..<hi]))
        }
    }
}
