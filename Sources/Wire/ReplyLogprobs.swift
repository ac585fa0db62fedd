// Record kind 6 of the typed reply stream (ReplyEvents.swift): the log probabilities of the
// tokens just streamed, sent only when the request asked for them (option `logprobs`).
//
//   logprobs    = count u16 | entry ...
//   entry       = token str16 | logprob f64 | flags u8 | [bytes bytes16]
//                 | alternative count u8 (at most 20) | alternative ...
//   alternative = token str16 | logprob f64 | flags u8 | [bytes bytes16]
//   flags       bit 0: the token's bytes follow; other bits refused
//
// f64 is IEEE 754 binary64, big-endian, finite (a logprob is 0 or below; not checked).
import RelayWire

extension AppMessage {
    /// One token's log probability and its likeliest alternatives; also Inference's `TokenLogprob`.
    public struct TokenLogprob: Equatable, Sendable {
        public struct Alternative: Equatable, Sendable {
            public var token: String
            public var logprob: Double
            public var bytes: [UInt8]?
            public init(token: String, logprob: Double, bytes: [UInt8]? = nil) {
                self.token = token; self.logprob = logprob; self.bytes = bytes
            }
        }
        public var token: String
        /// The natural log of the token's probability: 0 or below.
        public var logprob: Double
        /// The token's UTF-8 bytes when the engine sends them (a token may be part of a character).
        public var bytes: [UInt8]?
        public var top: [Alternative]
        public init(token: String, logprob: Double, bytes: [UInt8]? = nil, top: [Alternative] = []) {
            self.token = token; self.logprob = logprob; self.bytes = bytes; self.top = top
        }
    }
}

extension Limits {
    /// Alternatives per token in a `logprobs` record: OpenAI's and Ollama's `top_logprobs` maximum.
    public static let maxTopLogprobs = 20
}

enum LogprobsRecord {
    static func write(_ entries: [AppMessage.TokenLogprob], into w: inout ByteWriter) throws(WireError) {
        try w.count(entries.count, "logprobs")
        for e in entries {
            try token(e.token, e.logprob, e.bytes, into: &w)
            guard e.top.count <= Limits.maxTopLogprobs else {
                throw .tooLarge(field: "logprob alternatives", length: e.top.count, limit: Limits.maxTopLogprobs)
            }
            w.u8(UInt8(e.top.count))
            for a in e.top { try token(a.token, a.logprob, a.bytes, into: &w) }
        }
    }

    static func read(_ r: inout ByteReader) throws(WireError) -> [AppMessage.TokenLogprob] {
        let n = try r.count(minItemSize: 12, "logprobs")
        var out: [AppMessage.TokenLogprob] = []
        out.reserveCapacity(n)
        for _ in 0..<n {
            let (t, lp, b) = try token(&r)
            let k = Int(try r.u8("logprob alternative count"))
            guard k <= Limits.maxTopLogprobs else {
                throw .tooLarge(field: "logprob alternatives", length: k, limit: Limits.maxTopLogprobs)
            }
            var top: [AppMessage.TokenLogprob.Alternative] = []
            for _ in 0..<k {
                let (at, alp, ab) = try token(&r)
                top.append(.init(token: at, logprob: alp, bytes: ab))
            }
            out.append(.init(token: t, logprob: lp, bytes: b, top: top))
        }
        return out
    }

    private static func token(_ t: String, _ lp: Double, _ b: [UInt8]?, into w: inout ByteWriter) throws(WireError) {
        try w.string(2, t, "logprob token")
        guard lp.isFinite else { throw .invalidValue(field: "logprob (not finite)", value: 0) }
        w.u64(lp.bitPattern)
        w.u8(b == nil ? 0 : 1)
        if let b { try w.prefixed(2, b, limit: .max, "logprob token bytes") }
    }

    private static func token(_ r: inout ByteReader) throws(WireError) -> (String, Double, [UInt8]?) {
        let t = try r.string(2, "logprob token")
        let lp = Double(bitPattern: try r.u64("logprob"))
        guard lp.isFinite else { throw .invalidValue(field: "logprob (not finite)", value: 0) }
        let flags = try r.u8("logprob flags")
        guard flags & ~0x01 == 0 else { throw .invalidValue(field: "logprob flags", value: Int(flags)) }
        let b = flags & 1 != 0 ? try r.prefixed(2, limit: .max, "logprob token bytes") : nil
        return (t, lp, b)
    }
}
