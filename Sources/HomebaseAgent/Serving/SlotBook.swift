import Signing

/// Who holds which engine slot and who waits, as a pure state machine (`ConcurrencyGate` keeps
/// the continuations). The account's own devices come first: grantees together hold at most
/// all slots but one and all queue places but one, so the owner's laptop always finds a slot or
/// the queue head; an owner waiter goes ahead of every grantee waiter, and one that finds the
/// queue full takes the place of the youngest grantee waiter. One grantee holds at most
/// `perGrantee` requests, running or waiting. With a single slot (or a single queue place) there
/// is nothing to keep: grantees share it, behind the owner's waiters.
struct SlotBook: Sendable {
    /// Who asks: a device of the account, or one grantee.
    enum Lane: Sendable, Hashable {
        case own
        case grantee(PublicKey)
    }

    /// What a request arriving meets.
    enum Arrival: Sendable, Equatable {
        /// A slot now.
        case admitted
        /// No slot now: wait (`enqueue`) for one.
        case wait(UInt64)
        /// This grantee already has `perGrantee` requests running or waiting.
        case overCap
    }

    let limit: Int
    let queue: Int
    let perGrantee: Int
    /// Slots and queue places grantees may take together.
    var granteeSlots: Int { limit > 1 ? limit - 1 : limit }
    var granteeQueue: Int { queue > 1 ? queue - 1 : queue }

    private(set) var active = 0
    private var granteeActive = 0
    /// Per grantee: requests holding a slot or waiting.
    private var held: [PublicKey: Int] = [:]
    private(set) var waiters: [(id: UInt64, lane: Lane)] = []
    private var nextID: UInt64 = 0

    init(limit: Int, queue: Int, perGrantee: Int) {
        self.limit = max(1, limit)
        self.queue = max(0, queue)
        self.perGrantee = max(1, perGrantee)
    }

    /// A request arrives: a slot, a ticket to wait with, or over its cap.
    mutating func arrive(_ lane: Lane) -> Arrival {
        if case .grantee(let key) = lane {
            guard held[key, default: 0] < perGrantee else { return .overCap }
            held[key, default: 0] += 1
        }
        if canStart(lane) {
            start(lane)
            return .admitted
        }
        nextID += 1
        return .wait(nextID)
    }

    /// The ticket joins the queue if there is a place for its lane: true. Grantee tickets whose
    /// place an owner took are added to `evicted`; they and a refused ticket are done.
    mutating func enqueue(_ id: UInt64, _ lane: Lane, evicted: inout [UInt64]) -> Bool {
        switch lane {
        case .own:
            if waiters.count >= queue {
                guard let i = waiters.lastIndex(where: { $0.lane != .own }) else { return refuse(lane) }
                evicted.append(waiters[i].id)
                leave(waiters.remove(at: i).lane)
            }
        case .grantee:
            let waiting = waiters.count { $0.lane != .own }
            guard waiters.count < queue && waiting < granteeQueue else { return refuse(lane) }
        }
        waiters.append((id, lane))
        return true
    }

    /// A waiting ticket takes a slot freed meanwhile (before it parks): true.
    mutating func startIfFree(_ lane: Lane) -> Bool {
        guard canStart(lane) else { return false }
        start(lane)
        return true
    }

    /// A ticket that gave up: true when it was waiting (it is done then).
    mutating func abandon(_ id: UInt64) -> Bool {
        guard let i = waiters.firstIndex(where: { $0.id == id }) else { return false }
        leave(waiters.remove(at: i).lane)
        return true
    }

    /// A ticket that gave up before it queued is done: its grantee's count goes back.
    mutating func drop(_ lane: Lane) { leave(lane) }

    /// A slot frees; returns the tickets that now hold slots (own waiters first, oldest first).
    mutating func release(_ lane: Lane) -> [UInt64] {
        active -= 1
        if case .grantee = lane { granteeActive -= 1 }
        leave(lane)
        var started: [UInt64] = []
        while let i = waiters.firstIndex(where: { $0.lane == .own && canStart(.own) })
                ?? waiters.firstIndex(where: { $0.lane != .own && canStart($0.lane) }) {
            let w = waiters.remove(at: i)
            start(w.lane)
            started.append(w.id)
        }
        return started
    }

    private func canStart(_ lane: Lane) -> Bool {
        guard active < limit else { return false }
        if case .grantee = lane { return granteeActive < granteeSlots }
        return true
    }

    private mutating func start(_ lane: Lane) {
        active += 1
        if case .grantee = lane { granteeActive += 1 }
    }

    private mutating func refuse(_ lane: Lane) -> Bool {
        leave(lane)
        return false
    }

    private mutating func leave(_ lane: Lane) {
        guard case .grantee(let key) = lane else { return }
        let left = (held[key] ?? 1) - 1
        held[key] = left > 0 ? left : nil
    }
}
