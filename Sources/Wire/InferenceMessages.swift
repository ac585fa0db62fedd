// Inference messages (accept, chunk and cancel are a request id and text: AppMessageCodec.swift).
//
// request v1 (0x10): request id 16 | model tag str16 | conversation id 16 | prefix hash 32
//                 | message count u16 | chat messages v1 | options u8 (bit 0 inline, bit 1 continuation;
//                   other bits reserved: 0 on send, ignored on receipt) | max tokens u32
//                 | temperature u16 (per mille: 700 = 0.7) | [continuation str32 if bit 1]
// request v2 (0x16): request id 16 | version u8 (2) | model tag str16 | conversation id 16
//                 | prefix hash 32 | flags u8 (bit 0 inline; other bits reserved: 0 on send,
//                   ignored on receipt) | message count u16 | chat messages v2 (Conversation.swift)
//                 | tool count u16 | tools | options (RequestOptions.swift)
//                   tool = name str16 | description str32 | parameters (JSON Schema text) str32
//                 A version above 2 is a later layout: only the request id is read (the rest is
//                 skipped) and the host answers `error` `unsupported` naming both versions.
// done    (0x13): request id 16 | prompt tokens u32 | completion tokens u32 | finish reason str16
// error   (0x14): request id 16 | code u8 | message str16
import RelayWire

extension AppMessage {
    /// Run a model over a conversation.
    public struct Request: Equatable, Sendable, BodyCodable {
        public var requestID: Bytes16
        public var model: String
        public var conversationID: Bytes16
        /// Hash of the conversation prefix `messages` extend (all-zero when empty or when `inline`).
        public var prefixHash: Bytes32
        public var messages: [ChatMessage]
        /// `messages` are the whole conversation (a joined host keeps no replica).
        public var inline: Bool
        public var tools: [ToolDefinition]
        /// Sampling, shaping, tool choice and the continuation (version 1: max tokens,
        /// temperature and continuation only).
        public var options: RequestOptions
        /// 1: type 0x10 (text only); 2: type 0x16; higher: a layout this build cannot read
        /// (decoded with only `requestID` set: answer `unsupported`).
        public var version: UInt8

        /// The newest layout this build reads and writes.
        public static let newestVersion: UInt8 = 2

        /// A version 1 request (text only; the temperature is always sent).
        public init(requestID: Bytes16, model: String, conversationID: Bytes16, prefixHash: Bytes32,
                    messages: [ChatMessage], inline: Bool, maxTokens: UInt32, temperaturePerMille: UInt16,
                    continuation: String? = nil) {
            var o = RequestOptions()
            o.maxTokens = maxTokens == 0 ? nil : maxTokens
            o.temperature = Double(temperaturePerMille) / 1000
            o.continuation = continuation
            self.init(requestID: requestID, model: model, conversationID: conversationID, prefixHash: prefixHash,
                      messages: messages, inline: inline, tools: [], options: o, version: 1)
        }

        public init(requestID: Bytes16, model: String, conversationID: Bytes16, prefixHash: Bytes32,
                    messages: [ChatMessage], inline: Bool, tools: [ToolDefinition] = [],
                    options: RequestOptions = RequestOptions(), version: UInt8 = Request.newestVersion) {
            self.requestID = requestID; self.model = model; self.conversationID = conversationID
            self.prefixHash = prefixHash; self.messages = messages; self.inline = inline
            self.tools = tools; self.options = options; self.version = version
        }

        /// Version 1's max tokens (0: none chosen).
        public var maxTokens: UInt32 { options.maxTokens ?? 0 }
        /// Version 1's temperature per mille (700 when none is set: version 1 cannot say "none").
        public var temperaturePerMille: UInt16 {
            guard let t = options.temperature, t.isFinite else { return 700 }
            return UInt16(clamping: Int((min(max(t, 0), 65.535) * 1000).rounded()))
        }
        public var continuation: String? {
            get { options.continuation }
            set { options.continuation = newValue }
        }

        /// Every byte of image data the request carries.
        public var imageBytes: Int { messages.reduce(0) { $0 + $1.imageBytes } }

        static let inlineBit: UInt8 = 0x01, continuationBit: UInt8 = 0x02

        var typeCode: UInt8 { version == 1 ? AppMessage.TypeCode.request : AppMessage.TypeCode.requestV2 }

        func write(to w: inout ByteWriter) throws(WireError) {
            switch version {
            case 1: try writeV1(to: &w)
            case 2: try writeV2(to: &w)
            default: w.fixed(requestID); w.u8(version)  // a later layout: only what was read of it
            }
        }

        private func writeV1(to w: inout ByteWriter) throws(WireError) {
            var v1 = options
            v1.maxTokens = nil; v1.temperature = nil; v1.continuation = nil
            guard tools.isEmpty, v1 == RequestOptions() else {
                throw .invalidValue(field: "version 1 request (tools or options)", value: 1)
            }
            w.fixed(requestID); try w.string(2, model, "model"); w.fixed(conversationID); w.fixed(prefixHash)
            try w.chatMessages(messages)
            w.u8((inline ? Self.inlineBit : 0) | (continuation == nil ? 0 : Self.continuationBit))
            w.u32(maxTokens); w.u16(temperaturePerMille)
            if let continuation { try w.string(4, continuation, "continuation") }
        }

        private func writeV2(to w: inout ByteWriter) throws(WireError) {
            w.fixed(requestID); w.u8(2); try w.string(2, model, "model"); w.fixed(conversationID); w.fixed(prefixHash)
            w.u8(inline ? Self.inlineBit : 0)
            try w.chatMessagesV2(messages)
            try w.count(tools.count, "tools")
            for t in tools {
                try w.string(2, t.name, "tool name"); try w.string(4, t.description, "tool description")
                try w.string(4, t.parametersJSON, "tool parameters")
            }
            try w.requestOptions(options)
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> Request {
            let id: Bytes16 = try r.fixed("request id")
            let model = try r.string(2, "model")
            let conversation: Bytes16 = try r.fixed("conversation id")
            let prefix: Bytes32 = try r.fixed("prefix hash")
            let messages = try r.chatMessages()
            let options = try r.u8("request options")
            let maxTokens = try r.u32("max tokens"), temperature = try r.u16("temperature")
            let continuation = options & continuationBit != 0 ? try r.string(4, "continuation") : nil
            return Request(requestID: id, model: model, conversationID: conversation, prefixHash: prefix,
                           messages: messages, inline: options & inlineBit != 0, maxTokens: maxTokens,
                           temperaturePerMille: temperature, continuation: continuation)
        }

        static func readV2(_ r: inout ByteReader) throws(WireError) -> Request {
            let id: Bytes16 = try r.fixed("request id")
            let version = try r.u8("request version")
            guard version == 2 else {
                guard version > 2 else { throw .invalidValue(field: "request version", value: Int(version)) }
                _ = try r.rest(limit: .max, "later request layout")
                return Request(requestID: id, model: "", conversationID: .zero, prefixHash: .zero, messages: [],
                               inline: false, version: version)
            }
            let model = try r.string(2, "model")
            let conversation: Bytes16 = try r.fixed("conversation id")
            let prefix: Bytes32 = try r.fixed("prefix hash")
            let flags = try r.u8("request flags")
            let messages = try r.chatMessagesV2()
            let n = try r.count(minItemSize: 10, "tools")
            var tools: [ToolDefinition] = []
            tools.reserveCapacity(n)
            for _ in 0..<n {
                tools.append(ToolDefinition(name: try r.string(2, "tool name"), description: try r.string(4, "tool description"),
                                            parametersJSON: try r.string(4, "tool parameters")))
            }
            return Request(requestID: id, model: model, conversationID: conversation, prefixHash: prefix,
                           messages: messages, inline: flags & inlineBit != 0, tools: tools,
                           options: try r.requestOptions(), version: 2)
        }
    }

    /// The answer is complete.
    public struct Done: Equatable, Sendable, BodyCodable {
        public var requestID: Bytes16
        public var promptTokens: UInt32
        public var completionTokens: UInt32
        /// As the runtime said it: "stop", "length", ...
        public var finishReason: String
        public init(requestID: Bytes16, promptTokens: UInt32, completionTokens: UInt32, finishReason: String) {
            self.requestID = requestID; self.promptTokens = promptTokens
            self.completionTokens = completionTokens; self.finishReason = finishReason
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(requestID); w.u32(promptTokens); w.u32(completionTokens)
            try w.string(2, finishReason, "finish reason")
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> Done {
            Done(requestID: try r.fixed("request id"), promptTokens: try r.u32("prompt tokens"),
                 completionTokens: try r.u32("completion tokens"), finishReason: try r.string(2, "finish reason"))
        }
    }

    /// The code of an inference `error`. An open set: an unknown code is treated as `hostError`.
    public struct ErrorCode: RawRepresentable, Hashable, Sendable {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let modelUnavailable = Self(rawValue: 1)
        public static let hostError = Self(rawValue: 2)
        public static let busy = Self(rawValue: 3)
        /// The host's replica does not hold `prefixHash`: reconcile, retry once.
        public static let diverged = Self(rawValue: 4)
        /// A joined host has no cached prefix: retry once with the conversation inline.
        public static let cacheMiss = Self(rawValue: 5)
        /// The grant was revoked.
        public static let revoked = Self(rawValue: 6)
        public static let badRequest = Self(rawValue: 7)
        /// Over a size limit (per image, per request); the message names the limit.
        public static let tooLarge = Self(rawValue: 8)
        /// The request's layout version is newer than the host reads: upgrade the host.
        public static let unsupported = Self(rawValue: 9)

        /// The spec's name (SPEC.md, error codes), in logs, `status` counters and the caller's
        /// error; an unknown code reads as `host_error`, as it is treated.
        public var name: String {
            switch self {
            case .modelUnavailable: "model_unavailable"
            case .busy: "busy"
            case .diverged: "diverged"
            case .cacheMiss: "cache_miss"
            case .revoked: "revoked"
            case .badRequest: "bad_request"
            case .tooLarge: "too_large"
            case .unsupported: "unsupported"
            case .notOwner: "not_owner"
            default: "host_error"
            }
        }
    }

    /// The request failed (the asker falls back or repairs, per code).
    public struct InferenceError: Equatable, Sendable, BodyCodable {
        public var requestID: Bytes16
        public var code: ErrorCode
        /// For logs; never prompt text.
        public var message: String
        public init(requestID: Bytes16, code: ErrorCode, message: String) {
            self.requestID = requestID; self.code = code; self.message = message
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(requestID); w.u8(code.rawValue); try w.string(2, message, "error message")
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> InferenceError {
            InferenceError(requestID: try r.fixed("request id"), code: ErrorCode(rawValue: try r.u8("error code")),
                           message: try r.string(2, "error message"))
        }
    }
}
