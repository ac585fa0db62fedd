import Foundation
import Storage

/// The state machine's writes. Each is one guarded statement or transaction, so the database
/// itself refuses a transition the rules forbid, whatever order tasks finish in.
extension ModelStore {
    /// Starts attempt n+1 of `id` (creating the row); refuses an unsupported model. Returns nil
    /// when the model is already ready.
    func begin(id: String, repo: String, quant: String, tier: QuantTier, provisional: Bool) throws -> Int? {
        try db.transaction { tx -> Int? in
            let now = Int64(Date().timeIntervalSince1970)
            let rows = try tx.query("SELECT state, attempt, detail FROM model WHERE id = ?", id)
            guard let row = rows.first else {
                try tx.execute("""
                    INSERT INTO model(id, repo, quant, files, projector, bytes, state, attempt, provisional, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, 'downloading', 1, ?, ?)
                    """, id, repo, quant, StoreSchema.json(tier.allFiles), tier.projector, tier.bytes, provisional, now)
                return 1
            }
            let state: String = try row.get("state")
            if state == "unsupported" {
                throw ModelStoreError.unsupported(model: id, detail: try row.get("detail", as: String?.self) ?? "")
            }
            if state == "ready" { return nil }
            let attempt: Int = try row.get("attempt") + 1
            try tx.execute("""
                UPDATE model SET state = 'downloading', attempt = ?, received = 0, detail = NULL, files = ?,
                    projector = ?, bytes = ?, provisional = (provisional AND ?), updated_at = ? WHERE id = ?
                """, attempt, StoreSchema.json(tier.allFiles), tier.projector, tier.bytes, provisional, now, id)
            return attempt
        }
    }

    /// A progress report of `attempt`; ignored once the row moved on (ready, cancelled, newer pull).
    @discardableResult
    func recordProgress(id: String, attempt: Int, received: Int64) -> Bool {
        (try? db.execute("UPDATE model SET received = ? WHERE id = ? AND attempt = ? AND state = 'downloading'",
                         received, id, attempt)) == 1
    }

    /// The end of `attempt`: ready, failed or unsupported, only if the row is still that attempt's
    /// download. Returns false when a cancel or a newer pull got there first.
    @discardableResult
    func settle(id: String, attempt: Int, to state: ModelState) -> Bool {
        let detail: String?
        switch state {
        case let .failed(reason), let .unsupported(reason): detail = reason
        case .ready: detail = nil
        case .absent, .downloading: return false  // not an end state
        }
        let provisional = state == .ready ? ", provisional = 0" : ""
        let changed = try? db.execute("""
            UPDATE model SET state = ?, detail = ?, updated_at = ?\(provisional)
            WHERE id = ? AND attempt = ? AND state = 'downloading'
            """, state.name, detail, Int64(Date().timeIntervalSince1970), id, attempt)
        return changed == 1
    }

    /// Ends any download of `id`: back to absent, attempt bumped so its task's later writes miss.
    /// Returns whether a download was running.
    @discardableResult
    func markCancelled(id: String) throws -> Bool {
        try db.execute("""
            UPDATE model SET state = 'absent', attempt = attempt + 1, received = 0, detail = NULL
            WHERE id = ? AND state = 'downloading'
            """, id) == 1
    }

    func isCurrent(id: String, attempt: Int) -> Bool {
        let rows = try? db.query("SELECT 1 FROM model WHERE id = ? AND attempt = ? AND state = 'downloading'", id, attempt)
        return rows?.isEmpty == false
    }
}
