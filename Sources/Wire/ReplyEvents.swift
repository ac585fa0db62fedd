// The typed reply stream: what a host sends in the stream chunks of a version 2 request
// (a version 1 request gets raw UTF-8 text, as before). The chunk data, concatenated in order,
// is a sequence of event records; a record may span chunks (the reader buffers), so chunk
// boundaries, padding buckets and coalescing are unchanged. `done`/`error` still end the stream.
//
//   record = kind u8 | length u32 | body (length bytes)
//   1 text            UTF-8 text
//   2 reasoning       UTF-8 text (the model's thinking)
//   3 tool-call-delta index u16 | flags u8 (bit 0 id, bit 1 name; others refused) | [id str16]
//                     | [name str16] | argument piece: UTF-8 text (rest of the body)
//   4 tool-call       id str16 | name str16 | arguments (JSON text) str32
//   5 ignored-options count u16 | key u16 each: option keys the host skipped (RequestOptions.swift)
//   6 logprobs        the log probabilities of the tokens just streamed (ReplyLogprobs.swift)
//   other             skipped by its length (`.unknown(kind:)`): a later host's event
//
// A body must fill its length exactly. A tool call is sent as its deltas, then whole (the
// engine's own event order, ChatEvent's contract).
import RelayWire

extension AppMessage {
    /// A piece of a tool call as the engine streams it.
    public struct ToolCallDelta: Equatable, Sendable {
        public var index: UInt16
        public var id: String?
        public var name: String?
        public var arguments: String
        public init(index: UInt16, id: String? = nil, name: String? = nil, arguments: String = "") {
            self.index = index; self.id = id; self.name = name; self.arguments = arguments
        }
    }
}

/// One event of the typed reply stream.
public enum ReplyEvent: Equatable, Sendable {
    case text(String)
    case reasoning(String)
    case toolCallDelta(AppMessage.ToolCallDelta)
    case toolCall(AppMessage.ToolCall)
    case ignoredOptions([UInt16])
    case logprobs([AppMessage.TokenLogprob])
    /// A kind this build does not know; its body was skipped.
    case unknown(kind: UInt8)

    enum Kind {
        static let text: UInt8 = 1, reasoning: UInt8 = 2, toolCallDelta: UInt8 = 3, toolCall: UInt8 = 4
        static let ignoredOptions: UInt8 = 5, logprobs: UInt8 = 6
    }

    /// The records of `events`, in order. `.unknown` is refused (it has no body to write).
    public static func encode(_ events: [ReplyEvent]) throws(WireError) -> [UInt8] {
        var w = ByteWriter()
        for e in events {
            var body = ByteWriter()
            let kind: UInt8
            switch e {
            case .text(let t): kind = Kind.text; body.raw(t.utf8)
            case .reasoning(let t): kind = Kind.reasoning; body.raw(t.utf8)
            case .toolCallDelta(let d):
                kind = Kind.toolCallDelta
                body.u16(d.index); body.u8((d.id == nil ? 0 : 1) | (d.name == nil ? 0 : 2))
                if let id = d.id { try body.string(2, id, "tool call id") }
                if let name = d.name { try body.string(2, name, "tool name") }
                body.raw(d.arguments.utf8)
            case .toolCall(let c):
                kind = Kind.toolCall
                try body.string(2, c.id, "tool call id"); try body.string(2, c.name, "tool name")
                try body.string(4, c.argumentsJSON, "tool arguments")
            case .ignoredOptions(let keys):
                kind = Kind.ignoredOptions
                try body.count(keys.count, "ignored options")
                for k in keys { body.u16(k) }
            case .logprobs(let entries):
                kind = Kind.logprobs
                try LogprobsRecord.write(entries, into: &body)
            case .unknown(let k): throw .invalidValue(field: "reply event kind", value: Int(k))
            }
            w.u8(kind)
            try w.prefixed(4, body.bytes, limit: Limits.maxReplyEvent, "reply event")
        }
        return w.bytes
    }

    /// Decodes one record's body.
    static func read(kind: UInt8, body: ArraySlice<UInt8>) throws(WireError) -> ReplyEvent {
        var r = ByteReader(body)
        func utf8(_ bytes: [UInt8], _ field: String) throws(WireError) -> String {
            guard let s = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8(field: field) }
            return s
        }
        let event: ReplyEvent
        switch kind {
        case Kind.text: event = .text(try utf8(try r.rest(limit: .max, "text"), "text"))
        case Kind.reasoning: event = .reasoning(try utf8(try r.rest(limit: .max, "reasoning"), "reasoning"))
        case Kind.toolCallDelta:
            let index = try r.u16("tool call index"), flags = try r.u8("tool call delta flags")
            guard flags & ~0x03 == 0 else { throw .invalidValue(field: "tool call delta flags", value: Int(flags)) }
            let id = flags & 1 != 0 ? try r.string(2, "tool call id") : nil
            let name = flags & 2 != 0 ? try r.string(2, "tool name") : nil
            let args = try utf8(try r.rest(limit: .max, "tool arguments"), "tool arguments")
            event = .toolCallDelta(.init(index: index, id: id, name: name, arguments: args))
        case Kind.toolCall:
            event = .toolCall(.init(id: try r.string(2, "tool call id"), name: try r.string(2, "tool name"),
                                    argumentsJSON: try r.string(4, "tool arguments")))
        case Kind.ignoredOptions:
            let n = try r.count(minItemSize: 2, "ignored options")
            var keys: [UInt16] = []
            for _ in 0..<n { keys.append(try r.u16("option key")) }
            event = .ignoredOptions(keys)
        case Kind.logprobs:
            event = .logprobs(try LogprobsRecord.read(&r))
        default:
            return .unknown(kind: kind)
        }
        try r.finish()
        return event
    }
}

/// Reads the typed reply stream as its chunks arrive. Pure; bounded by `Limits.maxReplyEvent`.
public struct ReplyEventReader: Sendable {
    private var buffer: [UInt8] = []

    public init() {}

    /// No record is half-received: a stream may end here.
    public var isAtBoundary: Bool { buffer.isEmpty }

    /// The events completed by `bytes`. A malformed or oversized record is an error (the
    /// stream cannot be trusted after it).
    public mutating func append(_ bytes: [UInt8]) throws(WireError) -> [ReplyEvent] {
        buffer += bytes
        var out: [ReplyEvent] = []
        var at = 0
        while buffer.count - at >= 5 {
            let length = buffer[at + 1..<at + 5].reduce(0) { $0 << 8 | Int($1) }
            guard length <= Limits.maxReplyEvent else {
                throw .tooLarge(field: "reply event", length: length, limit: Limits.maxReplyEvent)
            }
            guard buffer.count - at - 5 >= length else { break }
            out.append(try ReplyEvent.read(kind: buffer[at], body: buffer[at + 5..<at + 5 + length]))
            at += 5 + length
        }
        buffer.removeFirst(at)
        return out
    }
}
