import Foundation
import Storage
import Wire

/// The own account's conversation replicas on disk, so a restart does not make every sibling
/// repair (`diverged`) its next request. Bounded: beyond `capacity` the least recently used go.
extension HostStore {
    /// One message of a stored replica. Rows from before #23 hold role and content only and
    /// read back as the text messages they were; a message plain text cannot say (parts,
    /// images, tool calls, a tool result) is kept whole in `wire`: its Wire version 2 encoding,
    /// base64 in the JSON (role and content stay beside it, for reading by eye).
    private struct Stored: Codable {
        var role: UInt8
        var content: String
        var wire: Data?
    }

    /// Saves the whole conversation `id` and forgets the least recently used beyond `capacity`.
    func saveReplica(_ id: [UInt8], _ messages: [AppMessage.ChatMessage], nowMs: Int64, capacity: Int) throws(HomebaseError) {
        let json = ColumnJSON.encode(messages.map { m in
            Stored(role: m.role.rawValue, content: m.content,
                   wire: m.isPlainText ? nil : (try? m.encoded()).map { Data($0) })
        })
        try storing {
            try db.transaction { tx in
                try tx.execute("""
                    INSERT INTO replicas(conversation_id, messages, used_ms) VALUES (?, ?, ?)
                    ON CONFLICT(conversation_id) DO UPDATE SET messages = excluded.messages, used_ms = excluded.used_ms
                    """, id, json, nowMs)
                try tx.execute("""
                    DELETE FROM replicas WHERE conversation_id IN
                        (SELECT conversation_id FROM replicas ORDER BY used_ms DESC LIMIT -1 OFFSET ?)
                    """, max(1, capacity))
            }
        }
    }

    /// The conversation `id` as last saved, nil when none (or unreadable).
    func loadReplica(_ id: [UInt8]) throws(HomebaseError) -> [AppMessage.ChatMessage]? {
        let rows = try storing { try db.query("SELECT messages FROM replicas WHERE conversation_id = ?", id) }
        guard let text = try? rows.first?.get(0, as: String.self),
              let stored = ColumnJSON.decode([Stored].self, text) else { return nil }
        var out: [AppMessage.ChatMessage] = []
        for s in stored {
            if let wire = s.wire {
                guard let m = try? AppMessage.ChatMessage.decode([UInt8](wire)) else { return nil }
                out.append(m)
                continue
            }
            guard let role = AppMessage.Role(rawValue: s.role) else { return nil }
            out.append(.init(role: role, content: s.content))
        }
        return out
    }
}
