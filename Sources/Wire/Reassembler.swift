// Reassembles split messages. Pure: no clocks (callers pass the time in), no I/O. Bounded: the
// announced total is checked against `maxMessageSize` at the first part, bytes held per message
// never exceed its total, and at most `maxInFlight` messages are incomplete at once.
import RelayWire

/// Collects parts until a message is complete.
public struct Reassembler: Sendable {
    private struct Pending {
        var count: UInt16
        var total: UInt32
        var deadlineMs: UInt64
        var parts: [UInt16: [UInt8]] = [:]
        var bytes = 0
    }

    public let configuration: Configuration
    private var pending: [Bytes16: Pending] = [:]

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Incomplete messages held.
    public var inFlight: Int { pending.count }

    /// Adds one part; returns the whole message once its last part arrives, else nil.
    /// Errors: `.duplicatePart` (the part is ignored, the message kept), `.inconsistentParts`
    /// (the message is discarded), `.tooLarge` (total over the bound), `.tooManyInFlight`,
    /// `.badPartIndex`.
    public mutating func add(_ part: AppMessage.Part, nowMs: UInt64) throws(WireError) -> [UInt8]? {
        try part.validate()
        guard Int(part.totalLength) <= configuration.maxMessageSize else {
            throw .tooLarge(field: "message", length: Int(part.totalLength), limit: configuration.maxMessageSize)
        }
        var p: Pending
        if let existing = pending[part.messageID] {
            p = existing
            guard p.count == part.count, p.total == part.totalLength else {
                pending[part.messageID] = nil
                throw .inconsistentParts
            }
            guard p.parts[part.index] == nil else { throw .duplicatePart(index: Int(part.index)) }
        } else {
            guard part.count == 1 || pending.count < configuration.maxInFlight else {
                throw .tooManyInFlight(limit: configuration.maxInFlight)
            }
            let (deadline, overflow) = nowMs.addingReportingOverflow(configuration.timeoutMs)
            p = Pending(count: part.count, total: part.totalLength, deadlineMs: overflow ? .max : deadline)
        }
        p.bytes += part.bytes.count
        guard p.bytes <= Int(p.total) else {
            pending[part.messageID] = nil
            throw .inconsistentParts
        }
        p.parts[part.index] = part.bytes
        guard p.parts.count == Int(p.count) else {
            pending[part.messageID] = p
            return nil
        }
        pending[part.messageID] = nil
        guard p.bytes == Int(p.total) else { throw .inconsistentParts }
        var message: [UInt8] = []
        message.reserveCapacity(p.bytes)
        for i in 0..<p.count { message.append(contentsOf: p.parts[i]!) }
        return message
    }

    /// Drops every message whose deadline has passed (deadline < nowMs) and reports what each lacked.
    public mutating func expire(nowMs: UInt64) -> [Incomplete] {
        let expired = pending.filter { $0.value.deadlineMs < nowMs }
        for id in expired.keys { pending[id] = nil }
        return expired.map { id, p in
            Incomplete(messageID: id, count: Int(p.count),
                       missing: (0..<Int(p.count)).filter { p.parts[UInt16($0)] == nil })
        }.sorted { $0.messageID.bytes.lexicographicallyPrecedes($1.messageID.bytes) }
    }

    /// The earliest deadline held, so a caller knows when to call `expire` next.
    public var nextDeadlineMs: UInt64? { pending.values.map(\.deadlineMs).min() }
}

extension Reassembler {
    /// Bounds; every one configurable so tests can run in milliseconds.
    public struct Configuration: Sendable {
        /// Largest reassembled message (announced total length).
        public var maxMessageSize: Int
        /// Most incomplete messages held at once; a part of a further message is refused.
        public var maxInFlight: Int
        /// How long after its first part a message may stay incomplete.
        public var timeoutMs: UInt64
        public init(maxMessageSize: Int = 16 << 20, maxInFlight: Int = 16, timeoutMs: UInt64 = 60_000) {
            self.maxMessageSize = maxMessageSize; self.maxInFlight = maxInFlight; self.timeoutMs = timeoutMs
        }
    }

    /// A message that expired incomplete.
    public struct Incomplete: Equatable, Sendable {
        public var messageID: Bytes16
        public var count: Int
        /// Indices never received, ascending.
        public var missing: [Int]
    }
}
