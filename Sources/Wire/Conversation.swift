// Conversation pieces shared by `request` and `sync-delta`.
//
// Version 1 (types 0x10 request, 0x20 sync-delta): text only.
//   chat message v1 = role u8 (1 system, 2 user, 3 assistant, 4 tool) | content str32
//
// Version 2 (types 0x16 request, 0x21 sync-delta): content parts, tool calls, tool results.
//   chat message v2 = role u8 | flags u8 (bit 0: a tool call id follows; other bits: refused)
//                     | part count u16 | parts | [tool call id str16] | tool call count u16 | tool calls
//   part            = kind u8 | body: 1 text = str32; 2 image = media type str16 | bytes32
//   tool call       = id str16 | name str16 | arguments (JSON text) str32
//
// sync-delta (0x20 v1, 0x21 v2): conversation id 16 | base prefix hash 32 | message count u16
//                                | messages (v1 or v2 layout) | resulting prefix hash 32
//
// Prefix hashes are computed by callers (Wire has no hash function); all-zero is the empty
// conversation. A plain-text message hashes as in version 1, so text-only conversations keep
// their hashes (InferenceWire/ConversationHashing.swift).
import RelayWire

extension AppMessage {
    /// Who said a chat message. Unknown roles are an error: a model must not guess a role.
    public enum Role: UInt8, Sendable {
        case system = 1, user = 2, assistant = 3, tool = 4
    }

    /// A piece of a message's content, in the order the client sent it.
    public enum ContentPart: Equatable, Sendable {
        case text(String)
        /// Decoded image bytes and their media type ("image/png"): never a URL.
        case image(mediaType: String, bytes: [UInt8])
    }

    /// A tool call the model made; `argumentsJSON` is JSON text, carried as is. Also Inference's
    /// `ToolCall` (Codable: a chat message's turns are).
    public struct ToolCall: Equatable, Sendable, Codable {
        public var id: String
        public var name: String
        public var argumentsJSON: String
        public init(id: String, name: String, argumentsJSON: String) {
            self.id = id; self.name = name; self.argumentsJSON = argumentsJSON
        }
    }

    /// One turn of a conversation.
    public struct ChatMessage: Equatable, Sendable {
        public var role: Role
        public var parts: [ContentPart]
        /// For `tool` messages: the call this result answers.
        public var toolCallID: String?
        /// For `assistant` messages that called tools.
        public var toolCalls: [ToolCall]

        /// A text message (no part when `content` is empty).
        public init(role: Role, content: String) {
            self.init(role: role, parts: content.isEmpty ? [] : [.text(content)])
        }
        public init(role: Role, parts: [ContentPart], toolCallID: String? = nil, toolCalls: [ToolCall] = []) {
            self.role = role; self.parts = parts; self.toolCallID = toolCallID; self.toolCalls = toolCalls
        }

        /// The text parts joined.
        public var content: String {
            parts.reduce(into: "") { if case .text(let t) = $1 { $0 += t } }
        }

        /// Says nothing the version 1 layout cannot: at most one text part, no tool fields.
        public var isPlainText: Bool {
            guard toolCallID == nil, toolCalls.isEmpty, parts.count <= 1 else { return false }
            if case .image? = parts.first { return false }
            return true
        }

        /// Bytes of image data in this message.
        public var imageBytes: Int {
            parts.reduce(0) { if case .image(_, let b) = $1 { $0 + b.count } else { $0 } }
        }

        /// The version 2 encoding of this message alone (what a rich message's prefix hash covers).
        public func encoded() throws(WireError) -> [UInt8] {
            var w = ByteWriter()
            try w.chatMessageV2(self)
            return w.bytes
        }

        /// Decodes `encoded()`, exactly.
        public static func decode(_ bytes: [UInt8]) throws(WireError) -> ChatMessage {
            var r = ByteReader(bytes[...])
            let m = try r.chatMessageV2()
            try r.finish()
            return m
        }
    }

    /// Messages appended to a conversation replica (own account's devices keep replicas in sync).
    public struct SyncDelta: Equatable, Sendable, BodyCodable {
        public var conversationID: Bytes16
        /// The prefix hash the receiver must hold for the delta to apply.
        public var basePrefixHash: Bytes32
        public var appended: [ChatMessage]
        /// The prefix hash after appending: a receiver checks it and asks to reconcile on mismatch.
        public var resultingPrefixHash: Bytes32
        /// 1: type 0x20 (text only); 2: type 0x21.
        public var version: UInt8
        /// `version` nil: 1 when every message is plain text (an older host reads it), else 2.
        public init(conversationID: Bytes16, basePrefixHash: Bytes32, appended: [ChatMessage], resultingPrefixHash: Bytes32,
                    version: UInt8? = nil) {
            self.conversationID = conversationID; self.basePrefixHash = basePrefixHash
            self.appended = appended; self.resultingPrefixHash = resultingPrefixHash
            self.version = version ?? (appended.allSatisfy(\.isPlainText) ? 1 : 2)
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(conversationID); w.fixed(basePrefixHash)
            if version == 1 { try w.chatMessages(appended) } else { try w.chatMessagesV2(appended) }
            w.fixed(resultingPrefixHash)
        }

        static func read(_ r: inout ByteReader, version: UInt8) throws(WireError) -> SyncDelta {
            SyncDelta(conversationID: try r.fixed("conversation id"), basePrefixHash: try r.fixed("base prefix hash"),
                      appended: version == 1 ? try r.chatMessages() : try r.chatMessagesV2(),
                      resultingPrefixHash: try r.fixed("resulting prefix hash"), version: version)
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> SyncDelta { try read(&r, version: 1) }
    }
}

extension ByteReader {
    mutating func role() throws(WireError) -> AppMessage.Role {
        let raw = try u8("role")
        guard let role = AppMessage.Role(rawValue: raw) else { throw .invalidValue(field: "role", value: Int(raw)) }
        return role
    }

    mutating func chatMessages() throws(WireError) -> [AppMessage.ChatMessage] {
        let n = try count(minItemSize: 5, "messages")
        var out: [AppMessage.ChatMessage] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(AppMessage.ChatMessage(role: try role(), content: try string(4, "content"))) }
        return out
    }

    mutating func chatMessagesV2() throws(WireError) -> [AppMessage.ChatMessage] {
        let n = try count(minItemSize: 6, "messages")
        var out: [AppMessage.ChatMessage] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try chatMessageV2()) }
        return out
    }

    mutating func chatMessageV2() throws(WireError) -> AppMessage.ChatMessage {
        let role = try role()
        let flags = try u8("message flags")
        guard flags & ~0x01 == 0 else { throw .invalidValue(field: "message flags", value: Int(flags)) }
        let n = try count(minItemSize: 5, "parts")
        var parts: [AppMessage.ContentPart] = []
        parts.reserveCapacity(n)
        for _ in 0..<n {
            switch try u8("part kind") {
            case 1: parts.append(.text(try string(4, "text part")))
            case 2: parts.append(.image(mediaType: try string(2, "media type"),
                                        bytes: try prefixed(4, limit: Limits.maxRequestBytes, "image")))
            case let k: throw .invalidValue(field: "part kind", value: Int(k))
            }
        }
        let callID = flags & 0x01 != 0 ? try string(2, "tool call id") : nil
        return AppMessage.ChatMessage(role: role, parts: parts, toolCallID: callID, toolCalls: try toolCalls())
    }

    mutating func toolCalls() throws(WireError) -> [AppMessage.ToolCall] {
        let n = try count(minItemSize: 8, "tool calls")
        var out: [AppMessage.ToolCall] = []
        out.reserveCapacity(n)
        for _ in 0..<n {
            out.append(AppMessage.ToolCall(id: try string(2, "tool call id"), name: try string(2, "tool name"),
                                           argumentsJSON: try string(4, "tool arguments")))
        }
        return out
    }
}

extension ByteWriter {
    /// Version 1 carries text only: a message that says more is refused, never cut.
    mutating func chatMessages(_ list: [AppMessage.ChatMessage]) throws(WireError) {
        try count(list.count, "messages")
        for m in list {
            guard m.isPlainText else { throw .invalidValue(field: "version 1 message (not plain text)", value: Int(m.role.rawValue)) }
            u8(m.role.rawValue); try string(4, m.content, "content")
        }
    }

    mutating func chatMessagesV2(_ list: [AppMessage.ChatMessage]) throws(WireError) {
        try count(list.count, "messages")
        for m in list { try chatMessageV2(m) }
    }

    mutating func chatMessageV2(_ m: AppMessage.ChatMessage) throws(WireError) {
        u8(m.role.rawValue); u8(m.toolCallID == nil ? 0 : 1)
        try count(m.parts.count, "parts")
        for p in m.parts {
            switch p {
            case .text(let t): u8(1); try string(4, t, "text part")
            case .image(let type, let bytes):
                u8(2); try string(2, type, "media type"); try prefixed(4, bytes, limit: Limits.maxRequestBytes, "image")
            }
        }
        if let id = m.toolCallID { try string(2, id, "tool call id") }
        try toolCalls(m.toolCalls)
    }

    mutating func toolCalls(_ calls: [AppMessage.ToolCall]) throws(WireError) {
        try count(calls.count, "tool calls")
        for c in calls {
            try string(2, c.id, "tool call id"); try string(2, c.name, "tool name"); try string(4, c.argumentsJSON, "tool arguments")
        }
    }
}
