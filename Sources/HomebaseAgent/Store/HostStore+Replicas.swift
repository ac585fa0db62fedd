import Storage
import Wire

/// The own account's conversation replicas on disk, so a restart does not make every sibling
/// repair (`diverged`) its next request. Bounded: beyond `capacity` the least recently used go.
extension HostStore {
    private struct Stored: Codable {
        var role: UInt8
        var content: String
    }

    /// Saves the whole conversation `id` and forgets the least recently used beyond `capacity`.
    func saveReplica(_ id: [UInt8], _ messages: [AppMessage.ChatMessage], nowMs: Int64, capacity: Int) throws(HomebaseError) {
        let json = ColumnJSON.encode(messages.map { Stored(role: $0.role.rawValue, content: $0.content) })
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
            guard let role = AppMessage.Role(rawValue: s.role) else { return nil }
            out.append(.init(role: role, content: s.content))
        }
        return out
    }
}
