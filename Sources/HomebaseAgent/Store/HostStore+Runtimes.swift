import Inference
import Storage

/// A runtime that once passed every probe step. `available` is the latest verification's
/// verdict: configuration (the row) and availability (the flag) are separate facts.
public struct StoredRuntime: Sendable, Equatable {
    /// Device-local: never leaves this machine (never in an advert, never in a message).
    public var url: String
    public var kind: RuntimeKind
    public var version: String?
    public var available: Bool
    /// The chat and embedding models of the last successful verification (kept while unavailable, for status;
    /// adverts show none of an unavailable runtime).
    public var models: [RuntimeModel]
    public var addedMs: Int64
    /// The last verification that passed.
    public var verifiedMs: Int64
    /// The last verification, passed or not.
    public var checkedMs: Int64
    /// Why the last verification failed (nil when it passed).
    public var lastError: String?
}

extension HostStore {
    public func runtimes() throws(HomebaseError) -> [StoredRuntime] {
        let rows = try storing {
            try db.query("""
                SELECT url, kind, version, available, models, added_ms, verified_ms, checked_ms, last_error
                FROM runtimes ORDER BY added_ms, url
                """)
        }
        return try storing {
            try rows.map { r in
                StoredRuntime(url: try r.get(0), kind: RuntimeKind(rawValue: try r.get(1)) ?? .openAICompatible,
                              version: try r.get(2), available: try r.get(3),
                              models: ColumnJSON.decode([RuntimeModel].self, try r.get(4)) ?? [],
                              addedMs: try r.get(5), verifiedMs: try r.get(6), checkedMs: try r.get(7),
                              lastError: try r.get(8))
            }
        }
    }

    /// Stores (or refreshes) a runtime whose probe verdict was `.ready`: available, with its models.
    public func saveVerified(_ report: RuntimeReport, url: String, nowMs: Int64) throws(HomebaseError) {
        // Embedding-only models are kept too: advertised with the embedding bit, never chat.
        let models = ColumnJSON.encode(report.models.filter { $0.mayComplete || $0.mayEmbed })
        try storing {
            try db.execute("""
                INSERT INTO runtimes(url, kind, version, available, models, added_ms, verified_ms, checked_ms, last_error)
                VALUES (?, ?, ?, 1, ?, ?, ?, ?, NULL)
                ON CONFLICT(url) DO UPDATE SET kind = excluded.kind, version = excluded.version, available = 1,
                    models = excluded.models, verified_ms = excluded.verified_ms, checked_ms = excluded.checked_ms,
                    last_error = NULL
                """, url, report.kind.rawValue, report.version, models, nowMs, nowMs, nowMs)
        }
    }

    /// Marks a stored runtime unavailable after a failed verification; keeps its configuration.
    public func markUnavailable(url: String, reason: String, nowMs: Int64) throws(HomebaseError) {
        try storing {
            try db.execute("UPDATE runtimes SET available = 0, checked_ms = ?, last_error = ? WHERE url = ?",
                           nowMs, reason, url)
        }
    }

    public func removeRuntime(url: String) throws(HomebaseError) {
        let n = try storing { try db.execute("DELETE FROM runtimes WHERE url = ?", url) }
        guard n == 1 else { throw .unknownRuntime(url) }
    }
}

extension HostStore {
    /// Writes a runtime row as given (tests: a scripted engine that would not pass the probe).
    func save(_ r: StoredRuntime) throws(HomebaseError) {
        try storing {
            try db.execute("""
                INSERT OR REPLACE INTO runtimes(url, kind, version, available, models, added_ms, verified_ms, checked_ms, last_error)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, r.url, r.kind.rawValue, r.version, r.available, ColumnJSON.encode(r.models), r.addedMs,
                r.verifiedMs, r.checkedMs, r.lastError)
        }
    }
}
