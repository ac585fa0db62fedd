// Inference messages (accept, chunk and cancel are a request id and text: AppMessageCodec.swift).
//
// request (0x10): request id 16 | model tag str16 | conversation id 16 | prefix hash 32
//                 | message count u16 | chat messages | options u8 (bit 0 inline, bit 1 continuation;
//                   other bits reserved: 0 on send, ignored on receipt) | max tokens u32
//                 | temperature u16 (per mille: 700 = 0.7) | [continuation str32 if bit 1]
// done    (0x13): request id 16 | prompt tokens u32 | completion tokens u32 | finish reason str16
// error   (0x14): request id 16 | code u8 | message str16

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
        public var maxTokens: UInt32
        public var temperaturePerMille: UInt16
        /// The start of the assistant's answer, already shown (a fallback continues it).
        public var continuation: String?
        public init(requestID: Bytes16, model: String, conversationID: Bytes16, prefixHash: Bytes32,
                    messages: [ChatMessage], inline: Bool, maxTokens: UInt32, temperaturePerMille: UInt16,
                    continuation: String? = nil) {
            self.requestID = requestID; self.model = model; self.conversationID = conversationID
            self.prefixHash = prefixHash; self.messages = messages; self.inline = inline
            self.maxTokens = maxTokens; self.temperaturePerMille = temperaturePerMille; self.continuation = continuation
        }

        static let inlineBit: UInt8 = 0x01, continuationBit: UInt8 = 0x02

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(requestID); try w.string(2, model, "model"); w.fixed(conversationID); w.fixed(prefixHash)
            try w.chatMessages(messages)
            w.u8((inline ? Self.inlineBit : 0) | (continuation == nil ? 0 : Self.continuationBit))
            w.u32(maxTokens); w.u16(temperaturePerMille)
            if let continuation { try w.string(4, continuation, "continuation") }
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
