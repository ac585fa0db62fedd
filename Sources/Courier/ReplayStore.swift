import Glibc
import Sealing
import Signing
import Storage

/// Replay state on disk: the rules of `ReplayBook` (a `ReplayGuard` per sender, a bounded
/// number of senders, a floor for forgotten ones) kept in one SQLite file of the agent's data
/// directory, so that a restarted agent, or the next `guest` command, still refuses what an
/// earlier process accepted. Every check and its update are one transaction: processes that
/// share the file (two `guest` commands at once) never both accept one id.
///
/// The file is created 0600 (SQLite gives its `-wal` and `-shm` the same mode). Its size is
/// bounded: at most `senders` × `template.capacity` ids per book, each about 80 bytes. A file
/// that is damaged or not ours is reported (`CourierError.replayStore`), never reset.
public final class ReplayStore: Sendable {
    /// Which replay state a message belongs to: envelopes and introductions never share one.
    public enum Book: Int, Sendable {
        case envelopes = 0
        case introductions = 1
    }

    public let path: String
    let db: Database

    static let schema = Schema(applicationID: 0x4842_5250, migrations: [  // "HBRP"
        """
        CREATE TABLE seen(book INTEGER NOT NULL, sender BLOB NOT NULL, id BLOB NOT NULL, ts INTEGER NOT NULL,
                          PRIMARY KEY(book, sender, id)) WITHOUT ROWID;
        CREATE INDEX seen_age ON seen(book, sender, ts);
        CREATE TABLE senders(book INTEGER NOT NULL, sender BLOB NOT NULL, watermark INTEGER, newest INTEGER NOT NULL,
                             used INTEGER NOT NULL, held INTEGER NOT NULL, PRIMARY KEY(book, sender)) WITHOUT ROWID;
        CREATE INDEX senders_used ON senders(book, used);
        CREATE TABLE floors(book INTEGER PRIMARY KEY, floor INTEGER NOT NULL);
        """,
    ])

    /// Opens (or creates, 0600) the store at `path`; its directory must exist.
    /// Throws `.replayStore` when the file cannot be opened or is damaged or foreign.
    public init(path: String) throws(CourierError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .replayStore(path: path, detail: String(cString: strerror(errno))) }
        _ = fchmod(fd, 0o600)  // an older, looser file is tightened
        Glibc.close(fd)
        do { db = try Database(path: path, schema: Self.schema) } catch {
            throw .replayStore(path: path, detail: "\(error)")
        }
    }

    /// Closes the file (later checks fail, and their messages are kept for a retry).
    public func close() { db.close() }

    /// Accepts and remembers `id` from `sender` in `book`, or throws `SealingError.replayed`
    /// (refused for good) or `.replayStore` (the file failed: refuse now, retry later).
    public func accept(_ id: MessageID, timestamp: UInt64, from sender: PublicKey, now: UInt64,
                       book: Book, limits: ReplayGuard, senders: Int) throws {
        do {
            try db.transaction { t in
                try Check(t: t, book: book.rawValue, sender: sender.bytes, limits: limits, senders: max(1, senders))
                    .run(id: id.bytes, timestamp: timestamp, now: now)
            }
        } catch let e as SealingError {
            throw e
        } catch {
            throw CourierError.replayStore(path: path, detail: "\(error)")
        }
    }
}

/// One accept, inside its transaction: `ReplayGuard.accept` and `ReplayBook.accept` in SQL.
private struct Check {
    let t: Transaction
    let book: Int
    let sender: [UInt8]
    let limits: ReplayGuard
    let senders: Int

    func run(id: [UInt8], timestamp: UInt64, now: UInt64) throws {
        let ts = Int64(clamping: timestamp), nowI = Int64(clamping: now)
        let row = try t.query("SELECT watermark, newest, held FROM senders WHERE book = ? AND sender = ?", book, sender).first
        var watermark: Int64?
        if let row { watermark = try row.get(0, as: Int64?.self) } else { watermark = try floor() }
        var held = try row?.get(2, as: Int.self) ?? 0
        let newest = max(try row?.get(1, as: Int64.self) ?? ts, ts)
        var rules = limits  // rules 1 and 2 (window, skew) from the pure guard
        if let w = watermark { rules.raiseWatermark(to: UInt64(w)) }
        guard rules.admits(timestamp, now: now) else { throw SealingError.replayed }
        let oldest = Int64(clamping: now >= limits.window ? now - limits.window : 0)
        held -= try t.execute("DELETE FROM seen WHERE book = ? AND sender = ? AND ts < ?", book, sender, oldest)
        guard try t.execute("INSERT OR IGNORE INTO seen(book, sender, id, ts) VALUES (?, ?, ?, ?)", book, sender, id, ts) == 1 else {
            throw SealingError.replayed
        }
        held += 1
        if held > limits.capacity {
            // Forget the oldest, unless it is stamped ahead of now (the watermark never passes now).
            let first = try t.query("SELECT id, ts FROM seen WHERE book = ? AND sender = ? ORDER BY ts LIMIT 1", book, sender)[0]
            let firstTs: Int64 = try first.get(1)
            guard firstTs <= nowI else { throw SealingError.replayed }
            try t.execute("DELETE FROM seen WHERE book = ? AND sender = ? AND id = ?", book, sender, try first.get(0, as: [UInt8].self))
            watermark = max(watermark ?? firstTs, firstTs)
            held -= 1
        }
        if row == nil { try makeRoom(now: nowI) }
        try t.execute("""
            INSERT INTO senders(book, sender, watermark, newest, used, held) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(book, sender) DO UPDATE SET watermark = excluded.watermark, newest = excluded.newest,
                used = excluded.used, held = excluded.held
            """, book, sender, watermark, newest, try nextUse(), held)
    }

    private func floor() throws -> Int64? {
        try t.query("SELECT floor FROM floors WHERE book = ?", book).first.map { try $0.get(0) }
    }

    private func nextUse() throws -> Int64 {
        try t.query("SELECT coalesce(max(used), 0) + 1 FROM senders WHERE book = ?", book)[0].get(0)
    }

    /// A new sender: when the book is full, forget the least recently heard one whose ids are
    /// all at or before now, and raise the floor to now; none such: refuse the new sender.
    private func makeRoom(now: Int64) throws {
        let count: Int = try t.query("SELECT count(*) FROM senders WHERE book = ?", book)[0].get(0)
        guard count >= senders else { return }
        let victim = try t.query("SELECT sender FROM senders WHERE book = ? AND newest <= ? ORDER BY used LIMIT 1", book, now)
        guard let v = victim.first else { throw SealingError.replayed }
        let key: [UInt8] = try v.get(0)
        try t.execute("DELETE FROM seen WHERE book = ? AND sender = ?", book, key)
        try t.execute("DELETE FROM senders WHERE book = ? AND sender = ?", book, key)
        try t.execute("""
            INSERT INTO floors(book, floor) VALUES (?, ?) ON CONFLICT(book) DO UPDATE SET floor = max(floor, excluded.floor)
            """, book, now)
    }
}
