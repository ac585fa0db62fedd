/// Per-address limits of a listener: open connections, pending (not yet established) connections
/// and an accept bucket per client address, plus a global cap on pending connections at which the
/// oldest pending one is evicted. One address cannot take every slot from the others.
import Basics

public struct HostLimits: Sendable {
    /// Open connections per client address.
    public var maxConnections = Int.max
    /// Connections per client address not yet `markEstablished` (for the relay: before `auth-ok`).
    public var maxPending = Int.max
    /// Accepts per second per client address (token bucket refill); 0: no per-address bucket.
    public var acceptsPerSecond = 0.0
    /// Accepts at once per client address (token bucket size).
    public var acceptBurst = 1.0
    /// Pending connections in all; at it the oldest pending connection is closed for the new one.
    public var maxPendingTotal = Int.max
    /// From this many pending connections on, `underPressure` is true (shorter deadlines).
    public var pressurePending = Int.max
    public init() {}
}

/// The listener's table of client addresses (loop thread only). Connections enter with the
/// transport peer's address; a trusted proxy's client address replaces it (`Connection.reassign`).
final class HostTable {
    struct Entry { var open = 0; var pending = 0; var tokens: Double; var last: UInt64 }

    let limits: HostLimits
    private var entries: [String: Entry] = [:]
    /// Pending connections, oldest first (entries no longer pending are skipped lazily).
    private var pendingOrder: [Connection] = []
    private var pendingHead = 0
    private(set) var pendingTotal = 0
    /// Sockets refused by a per-address limit, and pending connections evicted.
    private(set) var refused = 0
    private(set) var evicted = 0

    init(limits: HostLimits) { self.limits = limits }

    var underPressure: Bool { pendingTotal >= limits.pressurePending }

    private var admitted = 0

    /// Whether a new connection from `host` fits its limits (takes an accept token if so).
    func admit(_ host: String, exempt: Bool, now: UInt64) -> Bool {
        admitted &+= 1
        if admitted % 4096 == 0 { prune(now: now) }
        var e = entries[host] ?? Entry(tokens: limits.acceptBurst, last: now)
        defer { if e.open > 0 || e.tokens < limits.acceptBurst { entries[host] = e } else { entries[host] = nil } }
        if exempt { return true }
        if e.open >= limits.maxConnections || e.pending >= limits.maxPending { refused += 1; return false }
        if limits.acceptsPerSecond > 0 {
            if now > e.last { e.tokens = min(limits.acceptBurst, e.tokens + Double(now - e.last) / 1e9 * limits.acceptsPerSecond) }
            e.last = now
            guard e.tokens >= 1 else { refused += 1; return false }
            e.tokens -= 1
        }
        return true
    }

    /// Counts `c` (pending) under its host; evicts the oldest pending connection if over the total.
    func opened(_ c: Connection) {
        entries[c.host, default: Entry(tokens: limits.acceptBurst, last: monotonicNanos())].open += 1
        entries[c.host]!.pending += 1
        pendingTotal += 1
        pendingOrder.append(c)
        while pendingTotal > limits.maxPendingTotal, let oldest = popOldestPending() {
            evicted += 1
            oldest.close(flush: false)
        }
    }

    func established(_ c: Connection) {
        guard c.pending else { return }
        c.pending = false
        entries[c.host]?.pending -= 1
        pendingTotal -= 1
        compact()
    }

    func closed(_ c: Connection) {
        established(c)
        entries[c.host]?.open -= 1
        if let e = entries[c.host], e.open <= 0, e.tokens >= limits.acceptBurst || limits.acceptsPerSecond == 0 {
            entries[c.host] = nil
        }
    }

    /// Moves `c` to `host` (the client behind a trusted proxy); false when that host is over a limit.
    func reassign(_ c: Connection, to host: String, now: UInt64) -> Bool {
        guard admit(host, exempt: false, now: now) else { return false }
        let wasPending = c.pending
        entries[c.host]?.open -= 1
        if wasPending { entries[c.host]?.pending -= 1 }
        if entries[c.host]?.open ?? 0 <= 0 { entries[c.host] = nil }
        c.host = host
        entries[host, default: Entry(tokens: limits.acceptBurst, last: now)].open += 1
        if wasPending { entries[host]!.pending += 1 }
        return true
    }

    func count(_ host: String) -> (open: Int, pending: Int) {
        let e = entries[host]
        return (e?.open ?? 0, e?.pending ?? 0)
    }

    /// Forgets addresses with no connection whose bucket has refilled: memory follows live addresses.
    private func prune(now: UInt64) {
        let (rate, burst) = (limits.acceptsPerSecond, limits.acceptBurst)
        entries = entries.filter { _, e in
            e.open > 0 || (rate > 0 && e.tokens + Double(now &- e.last) / 1e9 * rate < burst)
        }
    }

    private func popOldestPending() -> Connection? {
        while pendingHead < pendingOrder.count {
            let c = pendingOrder[pendingHead]
            pendingHead += 1
            if c.pending && c.isOpen { return c }
        }
        return nil
    }

    /// Drops the skipped prefix once it is most of the array (amortised O(1)).
    private func compact() {
        while pendingHead < pendingOrder.count, !pendingOrder[pendingHead].pending { pendingHead += 1 }
        if pendingHead > 64 && pendingHead * 2 > pendingOrder.count {
            pendingOrder.removeFirst(pendingHead)
            pendingHead = 0
        }
    }
}

/// Per-address state of a server connection (HostTable.swift).
extension Connection {
    /// "a.b.c.d:port" -> "a.b.c.d", "[v6]:port" -> "v6".
    static func hostPart(of peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") { return String(peer[peer.index(after: peer.startIndex)..<close]) }
        if let colon = peer.lastIndex(of: ":") { return String(peer[..<colon]) }
        return peer
    }

    /// The connection is past its admission step (the relay: `auth-ok`); it stops counting as
    /// pending and can no longer be evicted for newer ones. Loop thread only.
    public func markEstablished() { hosts?.established(self) }

    /// The client behind a trusted proxy: `host` replaces the proxy's address for limits and logs.
    /// False when that address is over its limits (the caller refuses the connection).
    public func reassign(host newHost: String, port: UInt16 = 0) -> Bool {
        if let hosts, !hosts.reassign(self, to: newHost, now: monotonicNanos()) { return false }
        host = newHost
        peer = newHost.contains(":") ? "[\(newHost)]:\(port)" : "\(newHost):\(port)"
        return true
    }

    /// Many connections are pending at the listener: deadlines before admission should be short.
    public var underPressure: Bool { hosts?.underPressure ?? false }
}
