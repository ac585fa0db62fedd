// The options map of a version 2 request (InferenceMessages.swift): forward compatible.
//
//   options = entry count u16 | entries;  entry = key u16 | value bytes32 (length u32 | value)
//
// A key's value must fill its length exactly. Known keys appear at most once (`extra` once
// per name); writers emit keys ascending, `extra` by name. A key this build does not know is
// skipped by its length and listed in `unknownKeys`: a host then answers without it and
// names it in the reply stream's `ignored-options` event, unless bit 15 of the key is set
// ("critical": a host that does not know it must refuse the request, `bad_request`).
//
//   key     name               value
//   0x0001  max_tokens         u32 (absent: no limit chosen)
//   0x0002  temperature        f64 (IEEE 754 binary64, big-endian; finite)
//   0x0003  top_p              f64
//   0x0004  top_k              i64
//   0x0005  min_p              f64
//   0x0006  seed               i64
//   0x0007  presence_penalty   f64
//   0x0008  frequency_penalty  f64
//   0x0009  repeat_penalty     f64
//   0x000a  context_length     i64 (Ollama num_ctx)
//   0x000b  logprobs           u8 0/1
//   0x000c  top_logprobs       i64
//   0x000d  stop               count u16 | str16 each
//   0x000e  response_format    kind u8: 1 text, 2 json_object, 3 json_schema = name str16 | strict u8 0/1 | schema str32
//   0x000f  extra              name str16 | JSON text str32 (an option without a name here, as the client sent it)
//   0x8001  continuation       str32 (critical: the answer must continue this text)
//   0x8002  tool_choice        kind u8: 1 auto, 2 none, 3 required, 4 function = name str16 (critical)
import RelayWire

extension AppMessage {
    /// Which tool the model must call (OpenAI `tool_choice`); also Inference's `ToolChoice`.
    public enum ToolChoice: Equatable, Sendable {
        case auto, none, required
        case function(String)
    }

    /// How the answer must be shaped; also Inference's `ResponseFormat`.
    public enum ResponseFormat: Equatable, Sendable {
        case text, jsonObject
        case jsonSchema(name: String, schemaJSON: String, strict: Bool)
    }

    /// A tool the model may call; `parametersJSON` is a JSON Schema object as text. Also
    /// Inference's `ToolDefinition` (Codable, as a chat message is).
    public struct ToolDefinition: Equatable, Sendable, Codable {
        public var name: String
        public var description: String
        public var parametersJSON: String
        public init(name: String, description: String, parametersJSON: String) {
            self.name = name; self.description = description; self.parametersJSON = parametersJSON
        }
    }

    /// Sampling and shaping options beyond `maxTokens` and `temperature` (also Inference's
    /// `GenerationOptions`: a request's options cross as they are). `nil` means "not sent": the
    /// engine's own default applies, never one of ours.
    public struct GenerationOptions: Equatable, Sendable {
        public var stop: [String] = []
        public var topP: Double?
        public var topK: Int?
        public var minP: Double?
        public var seed: Int?
        public var presencePenalty: Double?
        public var frequencyPenalty: Double?
        public var repeatPenalty: Double?
        public var responseFormat: ResponseFormat?
        /// The context window to run with (Ollama `num_ctx`).
        public var contextLength: Int?
        public var logprobs: Bool?
        public var topLogprobs: Int?
        /// Options this vocabulary has no name for, as the client sent them: key → JSON text.
        /// Carried to an OpenAI-compatible engine as-is; a brain that cannot carry them names
        /// them in its error.
        public var extra: [String: String] = [:]
        public init() {}
        public var isEmpty: Bool { self == GenerationOptions() }
    }

    /// Everything optional about a request. nil (or empty) is "not sent": the engine's default.
    public struct RequestOptions: Equatable, Sendable {
        public var maxTokens: UInt32?
        public var temperature: Double?
        public var generation = GenerationOptions()
        public var continuation: String?
        public var toolChoice: ToolChoice?
        /// Entries read whose key this build does not know, kept as they came (and written
        /// back as they came, so a message re-encodes to what it decoded from).
        public var unknown: [UnknownOption] = []
        public init() {}

        /// The keys of `unknown`, in the order read. Bit 15 set: critical.
        public var unknownKeys: [UInt16] { unknown.map(\.key) }

        public static let criticalBit: UInt16 = 0x8000
        /// The unknown keys a receiver must not ignore.
        public var unknownCritical: [UInt16] { unknownKeys.filter { $0 & Self.criticalBit != 0 } }
    }

    /// An option entry of a later version: its key and undecoded value.
    public struct UnknownOption: Equatable, Sendable {
        public var key: UInt16
        public var value: [UInt8]
        public init(key: UInt16, value: [UInt8]) { self.key = key; self.value = value }
    }
}

/// The option keys (table above).
enum OptionKey {
    static let maxTokens: UInt16 = 0x0001, temperature: UInt16 = 0x0002, topP: UInt16 = 0x0003, topK: UInt16 = 0x0004
    static let minP: UInt16 = 0x0005, seed: UInt16 = 0x0006, presence: UInt16 = 0x0007, frequency: UInt16 = 0x0008
    static let repeatPenalty: UInt16 = 0x0009, contextLength: UInt16 = 0x000A, logprobs: UInt16 = 0x000B
    static let topLogprobs: UInt16 = 0x000C, stop: UInt16 = 0x000D, responseFormat: UInt16 = 0x000E, extra: UInt16 = 0x000F
    static let continuation: UInt16 = 0x8001, toolChoice: UInt16 = 0x8002
}

extension AppMessage.RequestOptions {
    /// The map's entries as written: key order (stable for `extra` and unknown entries), each
    /// value encoded.
    public func entries() throws(WireError) -> [(key: UInt16, value: [UInt8])] {
        try ByteWriter.optionEntries(self)
    }
}

extension ByteWriter {
    mutating func requestOptions(_ o: AppMessage.RequestOptions) throws(WireError) {
        let entries = try Self.optionEntries(o)
        try count(entries.count, "options")
        for (key, value) in entries { u16(key); try prefixed(4, value, limit: Int(UInt32.max), "option value") }
    }

    static func optionEntries(_ o: AppMessage.RequestOptions) throws(WireError) -> [(key: UInt16, value: [UInt8])] {
        var entries: [(UInt16, ByteWriter)] = []
        let g = o.generation
        func entry(_ key: UInt16, _ body: (inout ByteWriter) throws(WireError) -> Void) throws(WireError) {
            var w = ByteWriter()
            try body(&w)
            entries.append((key, w))
        }
        func f64(_ key: UInt16, _ v: Double?, _ field: String) throws(WireError) {
            guard let v else { return }
            guard v.isFinite else { throw .invalidValue(field: field, value: 0) }
            try entry(key) { $0.u64(v.bitPattern) }
        }
        func i64(_ key: UInt16, _ v: Int?) throws(WireError) {
            guard let v else { return }
            try entry(key) { $0.u64(UInt64(bitPattern: Int64(v))) }
        }
        if let v = o.maxTokens { try entry(OptionKey.maxTokens) { $0.u32(v) } }
        try f64(OptionKey.temperature, o.temperature, "temperature")
        try f64(OptionKey.topP, g.topP, "top_p")
        try i64(OptionKey.topK, g.topK)
        try f64(OptionKey.minP, g.minP, "min_p")
        try i64(OptionKey.seed, g.seed)
        try f64(OptionKey.presence, g.presencePenalty, "presence_penalty")
        try f64(OptionKey.frequency, g.frequencyPenalty, "frequency_penalty")
        try f64(OptionKey.repeatPenalty, g.repeatPenalty, "repeat_penalty")
        try i64(OptionKey.contextLength, g.contextLength)
        if let v = g.logprobs { try entry(OptionKey.logprobs) { $0.bool(v) } }
        try i64(OptionKey.topLogprobs, g.topLogprobs)
        if !g.stop.isEmpty { try entry(OptionKey.stop) { (w) throws(WireError) in try w.stringList(g.stop, "stop") } }
        if let f = g.responseFormat {
            try entry(OptionKey.responseFormat) { (w) throws(WireError) in
                switch f {
                case .text: w.u8(1)
                case .jsonObject: w.u8(2)
                case .jsonSchema(let name, let schema, let strict):
                    w.u8(3); try w.string(2, name, "schema name"); w.bool(strict); try w.string(4, schema, "schema")
                }
            }
        }
        for name in g.extra.keys.sorted() {
            try entry(OptionKey.extra) { (w) throws(WireError) in
                try w.string(2, name, "extra option name"); try w.string(4, g.extra[name]!, "extra option value")
            }
        }
        if let c = o.continuation { try entry(OptionKey.continuation) { (w) throws(WireError) in try w.string(4, c, "continuation") } }
        if let c = o.toolChoice {
            try entry(OptionKey.toolChoice) { (w) throws(WireError) in
                switch c {
                case .auto: w.u8(1)
                case .none: w.u8(2)
                case .required: w.u8(3)
                case .function(let name): w.u8(4); try w.string(2, name, "tool choice name")
                }
            }
        }
        for u in o.unknown { try entry(u.key) { $0.raw(u.value) } }
        return entries.enumerated().sorted(by: { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) })
            .map { (key: $0.element.0, value: $0.element.1.bytes) }
    }
}

extension ByteReader {
    mutating func requestOptions() throws(WireError) -> AppMessage.RequestOptions {
        var o = AppMessage.RequestOptions()
        var seen: Set<UInt16> = []
        let n = try count(minItemSize: 6, "options")
        for _ in 0..<n {
            let key = try u16("option key")
            let value = try prefixed(4, limit: Limits.maxRequestBytes, "option value")
            var r = ByteReader(value[...])
            if key != OptionKey.extra {
                guard seen.insert(key).inserted else { throw .invalidValue(field: "repeated option key", value: Int(key)) }
            }
            func f64(_ field: String) throws(WireError) -> Double {
                let v = Double(bitPattern: try r.u64(field))
                guard v.isFinite else { throw .invalidValue(field: field, value: 0) }
                return v
            }
            func i64(_ field: String) throws(WireError) -> Int { Int(Int64(bitPattern: try r.u64(field))) }
            switch key {
            case OptionKey.maxTokens: o.maxTokens = try r.u32("max_tokens")
            case OptionKey.temperature: o.temperature = try f64("temperature")
            case OptionKey.topP: o.generation.topP = try f64("top_p")
            case OptionKey.topK: o.generation.topK = try i64("top_k")
            case OptionKey.minP: o.generation.minP = try f64("min_p")
            case OptionKey.seed: o.generation.seed = try i64("seed")
            case OptionKey.presence: o.generation.presencePenalty = try f64("presence_penalty")
            case OptionKey.frequency: o.generation.frequencyPenalty = try f64("frequency_penalty")
            case OptionKey.repeatPenalty: o.generation.repeatPenalty = try f64("repeat_penalty")
            case OptionKey.contextLength: o.generation.contextLength = try i64("context_length")
            case OptionKey.logprobs: o.generation.logprobs = try r.bool("logprobs")
            case OptionKey.topLogprobs: o.generation.topLogprobs = try i64("top_logprobs")
            case OptionKey.stop: o.generation.stop = try r.stringList("stop")
            case OptionKey.responseFormat:
                switch try r.u8("response format kind") {
                case 1: o.generation.responseFormat = .text
                case 2: o.generation.responseFormat = .jsonObject
                case 3:
                    let name = try r.string(2, "schema name"), strict = try r.bool("strict")
                    o.generation.responseFormat = .jsonSchema(name: name, schemaJSON: try r.string(4, "schema"), strict: strict)
                case let k: throw .invalidValue(field: "response format kind", value: Int(k))
                }
            case OptionKey.extra:
                let name = try r.string(2, "extra option name")
                guard o.generation.extra[name] == nil else { throw .invalidValue(field: "repeated extra option", value: 0) }
                o.generation.extra[name] = try r.string(4, "extra option value")
            case OptionKey.continuation: o.continuation = try r.string(4, "continuation")
            case OptionKey.toolChoice:
                switch try r.u8("tool choice kind") {
                case 1: o.toolChoice = .auto
                case 2: o.toolChoice = AppMessage.ToolChoice.none
                case 3: o.toolChoice = .required
                case 4: o.toolChoice = .function(try r.string(2, "tool choice name"))
                case let k: throw .invalidValue(field: "tool choice kind", value: Int(k))
                }
            default:
                o.unknown.append(.init(key: key, value: value))  // skipped by its length: forward compatibility
                continue
            }
            try r.finish()
        }
        return o
    }
}
