import Signing
import Storage
import Wire

/// Other accounts' Homebases: invited, joined or revoked, their models and when they were last
/// heard from. The router reads it through `JoinedHomebaseSource`.
///
/// State changes: `addInvite` creates `invited` (or re-invites a revoked host); `markJoined`
/// takes `invited` to `joined`; `markRevoked` ends either. Last-heard time moves forward only,
/// with any inbound frame (`heard`) or advert (`acceptAdvert`).
public final class JoinedHomebaseStore: JoinedHomebaseSource, Sendable {
    private let db: Database
    private let clock: any WallClock

    public init(database: Database, clock: any WallClock = SystemWallClock()) {
        db = database
        self.clock = clock
    }

    /// Records an invitation. A host already `invited` or `joined` keeps its state and takes
    /// the new relay, HPKE key and models; a `revoked` host becomes `invited` again.
    public func addInvite(hostKey: PublicKey, hpkeKey: [UInt8], relayURL: String, models: [String]) throws(RoutingError) {
        guard hpkeKey.count == JoinedHomebase.hpkeKeyByteCount else {
            throw .invalidRecord("an HPKE key is \(JoinedHomebase.hpkeKeyByteCount) bytes, got \(hpkeKey.count)")
        }
        guard !relayURL.isEmpty else { throw .invalidRecord("empty relay URL") }
        try storing {
            try db.transaction { tx in
                try tx.execute("""
                    INSERT INTO joined_homebases(host_key, hpke_key, relay_url, state) VALUES (?, ?, ?, 'invited')
                    ON CONFLICT(host_key) DO UPDATE SET hpke_key = excluded.hpke_key, relay_url = excluded.relay_url,
                        state = CASE state WHEN 'revoked' THEN 'invited' ELSE state END
                    """, hostKey.bytes, hpkeKey, relayURL)
                let known = try Self.capabilities(tx, hostKey)
                try Self.replaceModels(tx, hostKey, models.map { ($0, known[$0]) })
            }
        }
    }

    /// The invitation was accepted: `invited` → `joined` (idempotent on `joined`).
    public func markJoined(_ hostKey: PublicKey) throws(RoutingError) {
        try transition(hostKey, to: .joined, allowedFrom: [.invited, .joined])
    }

    /// The grant was revoked or the guest left: any state → `revoked`.
    public func markRevoked(_ hostKey: PublicKey) throws(RoutingError) {
        try transition(hostKey, to: .revoked, allowedFrom: Set(JoinedHomebase.State.allCases))
    }

}

// Hearing from a host: frames, adverts, grants.
extension JoinedHomebaseStore {
    /// Any inbound frame from `hostKey`, held `heldMs` by the relay, refreshes its last-heard
    /// time (never backwards). Returns false when the host is not on file.
    @discardableResult
    public func heard(from hostKey: PublicKey, heldMs: UInt64) throws(RoutingError) -> Bool {
        let receipt = receiptTime(nowMs: clock.nowMs(), heldMs: heldMs)
        return try storing {
            try db.execute("""
                UPDATE joined_homebases SET last_heard_ms = max(coalesce(last_heard_ms, ?1), ?1) WHERE host_key = ?2
                """, receipt, hostKey.bytes) == 1
        }
    }

    /// A signed advert from a joined host: verified against the record's host key, sequence
    /// above the last accepted; it replaces the model list and counts as hearing from the host.
    @discardableResult
    public func acceptAdvert(_ advert: AppMessage.Advert, heldMs: UInt64) throws(RoutingError) -> JoinedHomebase {
        let hostKey = advert.hostKey
        try advert.verify(from: hostKey)
        let receipt = receiptTime(nowMs: clock.nowMs(), heldMs: heldMs)
        try storing {
            try db.transaction { tx in
                guard let row = try tx.query("SELECT advert_sequence FROM joined_homebases WHERE host_key = ?",
                                             hostKey.bytes).first else {
                    throw RoutingError.unknownHomebase(hostKey: shortKey(hostKey))
                }
                if let last = try row.get(0, as: Int64?.self).map(UInt64.init(bitPattern:)), advert.sequence <= last {
                    throw RoutingError.staleSequence(received: advert.sequence, lastAccepted: last)
                }
                try tx.execute("""
                    UPDATE joined_homebases SET advert_sequence = ?1,
                        last_heard_ms = max(coalesce(last_heard_ms, ?2), ?2) WHERE host_key = ?3
                    """, Int64(bitPattern: advert.sequence), receipt, hostKey.bytes)
                try Self.replaceModels(tx, hostKey, advert.models.map { ($0.tag, $0.capabilities) })
            }
        }
        guard let record = try joinedRecord(hostKey) else { throw .unknownHomebase(hostKey: shortKey(hostKey)) }
        return record
    }

    /// Replaces the model list (a grant names the models it allows). A tag already advertised
    /// keeps its capabilities; a new one is unknown until the next advert.
    public func setModels(_ hostKey: PublicKey, _ models: [String]) throws(RoutingError) {
        try storing {
            try db.transaction { tx in
                guard try !tx.query("SELECT 1 FROM joined_homebases WHERE host_key = ?", hostKey.bytes).isEmpty else {
                    throw RoutingError.unknownHomebase(hostKey: shortKey(hostKey))
                }
                let known = try Self.capabilities(tx, hostKey)
                try Self.replaceModels(tx, hostKey, models.map { ($0, known[$0]) })
            }
        }
    }

    /// What the grant allows beyond chat (`grant-terms`): whether requests may carry tools.
    public func setToolsGranted(_ hostKey: PublicKey, _ granted: Bool) throws(RoutingError) {
        let n = try storing {
            try db.execute("UPDATE joined_homebases SET tools_granted = ? WHERE host_key = ?", granted, hostKey.bytes)
        }
        guard n == 1 else { throw .unknownHomebase(hostKey: shortKey(hostKey)) }
    }

}

// Reading and forgetting records.
extension JoinedHomebaseStore {
    /// Forgets the host entirely.
    public func remove(_ hostKey: PublicKey) throws(RoutingError) {
        _ = try storing { try db.execute("DELETE FROM joined_homebases WHERE host_key = ?", hostKey.bytes) }
    }

    public func joinedHomebase(_ hostKey: PublicKey) throws -> JoinedHomebase? {
        try joinedRecord(hostKey)
    }

    /// The record of `hostKey`, nil when not on file (or its row is unreadable).
    public func joinedRecord(_ hostKey: PublicKey) throws(RoutingError) -> JoinedHomebase? {
        try storing {
            try db.transaction { tx in try Self.read(tx, where: "WHERE host_key = ?", [hostKey.bytes]).first }
        }
    }

    /// Every readable record, by host key.
    public func all() throws(RoutingError) -> [JoinedHomebase] {
        try storing { try db.transaction { tx in try Self.read(tx, where: "ORDER BY host_key", []) } }
    }

}

extension JoinedHomebaseStore {
    private func transition(_ hostKey: PublicKey, to new: JoinedHomebase.State,
                            allowedFrom: Set<JoinedHomebase.State>) throws(RoutingError) {
        try storing {
            try db.transaction { tx in
                guard let row = try tx.query("SELECT state FROM joined_homebases WHERE host_key = ?", hostKey.bytes).first else {
                    throw RoutingError.unknownHomebase(hostKey: shortKey(hostKey))
                }
                let current = try row.get(0, as: String.self)
                guard let state = JoinedHomebase.State(rawValue: current), allowedFrom.contains(state) else {
                    throw RoutingError.invalidTransition(hostKey: shortKey(hostKey), from: current, to: new.rawValue)
                }
                try tx.execute("UPDATE joined_homebases SET state = ? WHERE host_key = ?", new.rawValue, hostKey.bytes)
            }
        }
    }

    /// `capabilities` nil: not advertised (yet).
    private static func replaceModels(_ tx: Transaction, _ hostKey: PublicKey,
                                      _ models: [(tag: String, capabilities: AppMessage.Capabilities?)]) throws {
        try tx.execute("DELETE FROM joined_models WHERE host_key = ?", hostKey.bytes)
        for (position, model) in models.enumerated() {
            try tx.execute("INSERT INTO joined_models(host_key, position, tag, capabilities) VALUES (?, ?, ?, ?)",
                           hostKey.bytes, position, model.tag, model.capabilities.map { Int64($0.rawValue) })
        }
    }

    /// The advertised capabilities of the host's models, by tag (unadvertised tags absent).
    private static func capabilities(_ tx: Transaction, _ hostKey: PublicKey) throws -> [String: AppMessage.Capabilities] {
        var out: [String: AppMessage.Capabilities] = [:]
        for row in try tx.query("SELECT tag, capabilities FROM joined_models WHERE host_key = ?", hostKey.bytes) {
            guard let tag = try? row.get(0, as: String.self), let bits = (try? row.get(1, as: Int64?.self)) ?? nil,
                  let byte = UInt8(exactly: bits) else { continue }
            out[tag] = AppMessage.Capabilities(rawValue: byte)
        }
        return out
    }

    /// Rows that do not read back as a record (a key of the wrong length, an unknown state)
    /// are skipped: to the router they are "not joined", which routes on-device.
    private static func read(_ tx: Transaction, where clause: String, _ params: [any SQLBindable]) throws -> [JoinedHomebase] {
        let rows = try tx.query("""
            SELECT host_key, hpke_key, relay_url, state, last_heard_ms, tools_granted FROM joined_homebases \(clause)
            """, parameters: params)
        return try rows.compactMap { row -> JoinedHomebase? in
            guard let key = (try? row.get(0, as: [UInt8].self)).flatMap({ PublicKey(bytes: $0) }),
                  let hpke = try? row.get(1, as: [UInt8].self), let relay = try? row.get(2, as: String.self),
                  let state = (try? row.get(3, as: String.self)).flatMap(JoinedHomebase.State.init(rawValue:)),
                  case .some(let heard) = Result(catching: { try row.get(4, as: Int64?.self) }).ok else { return nil }
            let models = try tx.query("SELECT tag FROM joined_models WHERE host_key = ? ORDER BY position", key.bytes)
                .compactMap { try? $0.get(0, as: String.self) }
            return JoinedHomebase(hostKey: key, hpkeKey: hpke, relayURL: relay, state: state, models: models, lastHeardMs: heard,
                                  capabilities: try capabilities(tx, key),
                                  toolsGranted: ((try? row.get(5, as: Int64.self)) ?? 0) != 0)
        }
    }
}

extension Result {
    /// The success value, nil on failure (unlike `try?`, keeps an optional success distinct).
    var ok: Success? { if case .success(let v) = self { v } else { nil } }
}
