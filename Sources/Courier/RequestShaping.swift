import Sealing
import Wire

/// How much of a request's size the relay may learn (SPEC 7, "Request shaping"): the guest's
/// `request.shaping`. Only means every receiver already accepts: a larger envelope bucket than
/// the body needs, parts of any size, and `padding` frames (skipped as an unknown type).
public enum RequestShaping: String, Sendable, CaseIterable, Codable {
    /// The smallest bucket; a long message in parts of the largest size (SPEC 4).
    case off
    /// Frames of at least `paddedFloor`; a split message in frames of the largest bucket, as
    /// many as a power of two (padding frames first).
    case padded
    /// Every frame of `cadenceBucket`; a longer message in parts that fill it, as many frames as
    /// a power of two; past `cadenceFrames` of them (an image) the largest bucket, as `padded`.
    case cadence

    /// `padded`'s floor: the 2048 bucket (2,097 bytes on the wire) holds a prompt of about a page
    /// (1,988 bytes of body), so short and medium prompts show one size.
    public static let paddedFloor = 2048
    /// `cadence`'s one frame size: the 4096 bucket (4,145 bytes on the wire).
    public static let cadenceBucket = 4096
    /// `cadence`'s frames of `cadenceBucket` per message at most (64 KiB): more would cost the
    /// relay's per-device frame budget (4,000 at once by default) for a large image, and tell it
    /// nothing the largest bucket does not (either way the size shows to within 2x).
    public static let cadenceFrames = 16

    /// How one encoded message goes out.
    public struct Plan: Equatable, Sendable {
        /// The bytes of each `part` when the message is split; nil: one frame.
        public var partPayload: Int?
        /// Every frame's padded plaintext is at least this (0: the smallest that holds it).
        public var bucket: Int
        /// `padding` frames sent before the message's own frames.
        public var paddingFrames: Int
    }

    /// The plan for an encoded message of `count` bytes; `maxBody` is the largest body one frame
    /// carries (the Courier's `maxBodyPerFrame`, 32,708 bytes, whose bucket is 32768).
    public func plan(encodedCount count: Int, maxBody: Int) -> Plan {
        let room: Int, bucket: Int
        switch self {
        case .off:
            return Plan(partPayload: count > maxBody ? maxBody - Limits.partOverhead : nil, bucket: 0, paddingFrames: 0)
        case .padded: room = maxBody; bucket = count > maxBody ? maxBody + Envelope.innerHeaderBytes : Self.paddedFloor
        case .cadence:
            let small = Envelope.bodyRoom(bucket: Self.cadenceBucket)
            let fits = count <= Self.cadenceFrames * (small - Limits.partOverhead)
            room = fits ? small : maxBody
            bucket = fits ? Self.cadenceBucket : maxBody + Envelope.innerHeaderBytes
        }
        guard count > room else { return Plan(partPayload: nil, bucket: bucket, paddingFrames: 0) }
        let piece = room - Limits.partOverhead
        let parts = (count + piece - 1) / piece
        return Plan(partPayload: piece, bucket: bucket, paddingFrames: Self.powerOfTwo(atLeast: parts) - parts)
    }

    /// The smallest power of two that is at least `n` (1 for n <= 1).
    static func powerOfTwo(atLeast n: Int) -> Int {
        var p = 1
        while p < n { p <<= 1 }
        return p
    }

    /// `guest status`'s line: the level and what it promises.
    public var summary: String {
        switch self {
        case .off: "off (each frame in the smallest bucket: a long request's or an image's size shows)"
        case .padded: "padded (frames of at least \(Self.paddedFloor + 49) bytes; a long request as a power of two of 32,817-byte frames)"
        case .cadence: "cadence (every frame \(Self.cadenceBucket + 49) bytes, a power of two of them; over 64 KiB 32,817-byte frames)"
        }
    }
}
