import Foundation
import Storage

/// A model this device wants downloaded in the background (a sibling chose it), kept in the
/// store's database so that the wish outlives every process: a detached fetcher downloads it,
/// selects it when `selectWhenReady` still holds, and clears the row.
public struct WantedModel: Sendable, Equatable {
    /// `owner/name:QUANT`.
    public var id: String
    public var repo: String
    public var quant: String
    /// Select it once ready; cleared when a newer choice replaced the wish.
    public var selectWhenReady: Bool
    /// When the wish was recorded (Unix seconds).
    public var since: Int64
    /// Why the last background download failed; nil while it is wanted and not failed. A failed
    /// wish waits for the person (`guest models pull ID`), it is not retried at every start.
    public var failure: String?
}

extension ModelStore {
    /// Records (or renews) the wish for `id` (`owner/name:QUANT`), clearing an earlier failure.
    /// `select`: the newest choice, so no other wish selects its model any more.
    @discardableResult
    public func want(_ id: String, select: Bool) throws -> WantedModel {
        guard let colon = id.lastIndex(of: ":"), colon != id.startIndex, id.index(after: colon) != id.endIndex else {
            throw ModelStoreError.invalidRepoID(id)
        }
        let repo = try RepoID.validate(String(id[..<colon])), quant = String(id[id.index(after: colon)...])
        try db.transaction { tx in
            if select { try tx.execute("UPDATE wanted SET select_when_ready = 0 WHERE id <> ?", id) }
            try tx.execute("""
                INSERT INTO wanted(id, repo, quant, select_when_ready, since, failure) VALUES (?, ?, ?, ?, ?, NULL)
                ON CONFLICT(id) DO UPDATE SET select_when_ready = excluded.select_when_ready, failure = NULL,
                    since = CASE WHEN wanted.failure IS NULL THEN wanted.since ELSE excluded.since END
                """, id, repo, quant, select, Int64(Date().timeIntervalSince1970))
        }
        guard let w = try wanted(id) else { throw ModelStoreError.unknownModel(id) }
        return w
    }

    /// Every wish, oldest first.
    public func wanted() throws -> [WantedModel] {
        try db.query("SELECT id, repo, quant, select_when_ready, since, failure FROM wanted ORDER BY since, id")
            .map(Self.wanted(row:))
    }

    public func wanted(_ id: String) throws -> WantedModel? {
        try db.query("SELECT id, repo, quant, select_when_ready, since, failure FROM wanted WHERE id = ?", id)
            .first.map(Self.wanted(row:))
    }

    /// A newer choice (`id`, or none) replaced every other wish's selection; their downloads go on.
    public func replaceWishes(with id: String?) throws {
        try db.execute("UPDATE wanted SET select_when_ready = 0 WHERE id <> ?", id ?? "")
    }

    /// The person cancelled or deleted the model: nobody wants it any more.
    public func dropWish(_ id: String) throws {
        try db.execute("DELETE FROM wanted WHERE id = ?", id)
    }

    public func recordWishFailure(_ id: String, _ reason: String) throws {
        try db.execute("UPDATE wanted SET failure = ? WHERE id = ?", reason, id)
    }

    /// The wish for a model now ready is fulfilled: selected if still wished, the row cleared, in
    /// one transaction (a newer choice arriving meanwhile either lands before and wins, or after).
    /// Returns whether it was selected; false too when nothing was wished.
    @discardableResult
    public func fulfilWish(_ id: String) throws -> Bool {
        guard try state(id) == .ready else { return false }
        return try db.transaction { tx in
            let rows = try tx.query("SELECT select_when_ready FROM wanted WHERE id = ?", id)
            guard let row = rows.first else { return false }
            let select: Bool = try row.get(0)
            if select {
                try tx.execute("""
                    INSERT INTO setting(key, value) VALUES ('selected', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value
                    """, id)
            }
            try tx.execute("DELETE FROM wanted WHERE id = ?", id)
            return select
        }
    }

    static func wanted(row: Row) throws -> WantedModel {
        WantedModel(id: try row.get(0), repo: try row.get(1), quant: try row.get(2), selectWhenReady: try row.get(3),
                    since: try row.get(4), failure: try row.get(5))
    }
}
