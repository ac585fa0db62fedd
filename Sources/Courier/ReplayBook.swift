import Sealing
import Signing

/// Replay state per sender, in memory: one `ReplayGuard` each (the template's window, skew and
/// capacity), for at most `senders` senders. What one sender stamps can then fill or raise only
/// its own guard. `ReplayStore` keeps the same rules on disk.
///
/// A further sender evicts the least recently heard one whose ids are all stamped at or before
/// now, and the book's floor rises to now: a sender the book does not hold (new, or evicted)
/// has its messages stamped at or before the floor refused, so a forgotten sender's recorded
/// envelopes stay refused. When every sender held has ids stamped ahead of now, the new sender
/// is refused instead (the floor never passes now).
struct ReplayBook: ReplayChecker {
    let template: ReplayGuard
    private(set) var senders: Int
    private var guards: [PublicKey: Entry] = [:]
    private var clock: UInt64 = 0
    /// The book's floor (0: no sender evicted yet).
    private(set) var floor: UInt64 = 0

    private struct Entry {
        var replay: ReplayGuard
        var used: UInt64
    }

    init(template: ReplayGuard, senders: Int) {
        self.template = template
        self.senders = max(1, senders)
    }

    /// Senders held.
    var count: Int { guards.count }

    /// Holds at least `n` senders from now on (never fewer than before).
    mutating func hold(atLeast n: Int) { senders = max(senders, n) }

    mutating func accept(_ id: MessageID, timestamp: UInt64, from sender: PublicKey, now: UInt64) throws {
        clock += 1
        if guards[sender] != nil {
            // In place (`!`): a copied guard would copy its tables on every message.
            try guards[sender]!.replay.accept(id, timestamp: timestamp, now: now)
            guards[sender]!.used = clock
            return
        }
        var fresh = template
        if floor > 0 { fresh.raiseWatermark(to: floor) }
        try fresh.accept(id, timestamp: timestamp, now: now)  // refused: nobody is evicted for it
        if guards.count >= senders { try evictOne(now: now) }
        guards[sender] = Entry(replay: fresh, used: clock)
    }

    private mutating func evictOne(now: UInt64) throws {
        let victim = guards.filter { ($0.value.replay.newest ?? 0) <= now }.min { $0.value.used < $1.value.used }
        guard let victim else { throw SealingError.replayed }
        guards[victim.key] = nil
        floor = max(floor, now)
    }
}

/// One kind of message's replay state: the in-memory book, or the same rules in the store.
struct ReplayState: ReplayChecker {
    var memory: ReplayBook
    let store: ReplayStore?
    let book: ReplayStore.Book
    /// Set around one open: the store's check is not run but kept in `pending` for the caller
    /// to commit (now, or on `ReplayCommit`'s thread). Without a store: no effect.
    var deferring = false
    var pending: StoreCheck?

    init(_ memory: ReplayBook, store: ReplayStore?, book: ReplayStore.Book) {
        self.memory = memory; self.store = store; self.book = book
    }

    mutating func hold(atLeast n: Int) { memory.hold(atLeast: n) }

    mutating func accept(_ id: MessageID, timestamp: UInt64, from sender: PublicKey, now: UInt64) throws {
        guard let store else { return try memory.accept(id, timestamp: timestamp, from: sender, now: now) }
        let check = StoreCheck(store: store, book: book, id: id, timestamp: timestamp, sender: sender, now: now,
                               limits: memory.template, senders: memory.senders)
        if deferring { pending = check } else { try check.run() }
    }
}

/// One store check taken out of the open that asked for it (`ReplayState.deferring`).
struct StoreCheck: Sendable {
    let store: ReplayStore
    let book: ReplayStore.Book
    let id: MessageID
    let timestamp: UInt64
    let sender: PublicKey
    let now: UInt64
    let limits: ReplayGuard
    let senders: Int

    /// Throws `SealingError.replayed` or `CourierError.replayStore`, as `ReplayStore.accept`.
    func run() throws {
        try store.accept(id, timestamp: timestamp, from: sender, now: now, book: book, limits: limits, senders: senders)
    }
}
