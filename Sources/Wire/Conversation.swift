// Conversation pieces shared by `request` and `sync-delta`.
//
//   chat message = role u8 (1 system, 2 user, 3 assistant, 4 tool) | content str32
//
// sync-delta (0x20): conversation id 16 | base prefix hash 32 | message count u16 | messages
//                    | resulting prefix hash 32
//
// Prefix hashes are computed by callers (Wire has no hash function); all-zero is the empty
// conversation.

extension AppMessage {
    /// Who said a chat message. Unknown roles are an error: a model must not guess a role.
    public enum Role: UInt8, Sendable {
        case system = 1, user = 2, assistant = 3, tool = 4
    }

    /// One turn of a conversation.
    public struct ChatMessage: Equatable, Sendable {
        public var role: Role
        public var content: String
        public init(role: Role, content: String) { self.role = role; self.content = content }
    }

    /// Messages appended to a conversation replica (own account's devices keep replicas in sync).
    public struct SyncDelta: Equatable, Sendable, BodyCodable {
        public var conversationID: Bytes16
        /// The prefix hash the receiver must hold for the delta to apply.
        public var basePrefixHash: Bytes32
        public var appended: [ChatMessage]
        /// The prefix hash after appending: a receiver checks it and asks to reconcile on mismatch.
        public var resultingPrefixHash: Bytes32
        public init(conversationID: Bytes16, basePrefixHash: Bytes32, appended: [ChatMessage], resultingPrefixHash: Bytes32) {
            self.conversationID = conversationID; self.basePrefixHash = basePrefixHash
            self.appended = appended; self.resultingPrefixHash = resultingPrefixHash
        }

        func write(to w: inout ByteWriter) throws(WireError) {
            w.fixed(conversationID); w.fixed(basePrefixHash)
            try w.chatMessages(appended)
            w.fixed(resultingPrefixHash)
        }

        static func read(_ r: inout ByteReader) throws(WireError) -> SyncDelta {
            SyncDelta(conversationID: try r.fixed("conversation id"), basePrefixHash: try r.fixed("base prefix hash"),
                      appended: try r.chatMessages(), resultingPrefixHash: try r.fixed("resulting prefix hash"))
        }
    }
}

extension ByteReader {
    mutating func chatMessages() throws(WireError) -> [AppMessage.ChatMessage] {
        let n = try count(minItemSize: 5, "messages")
        var out: [AppMessage.ChatMessage] = []
        out.reserveCapacity(n)
        for _ in 0..<n {
            let raw = try u8("role")
            guard let role = AppMessage.Role(rawValue: raw) else { throw .invalidValue(field: "role", value: Int(raw)) }
            out.append(AppMessage.ChatMessage(role: role, content: try string(4, "content")))
        }
        return out
    }
}

extension ByteWriter {
    mutating func chatMessages(_ list: [AppMessage.ChatMessage]) throws(WireError) {
        try count(list.count, "messages")
        for m in list { u8(m.role.rawValue); try string(4, m.content, "content") }
    }
}
