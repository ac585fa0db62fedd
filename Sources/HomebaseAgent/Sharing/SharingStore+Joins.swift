import Sealing
import Signing
import Storage
import Wire

/// What a `join` comes to (`SharingStore.admitJoin`).
enum JoinDecision: Sendable, Equatable {
    /// A new grant: store it and tell the joiner.
    case granted(JoinRecord)
    /// Approval mode: recorded, waiting for `homebase grants approve`.
    case pending(JoinRecord)
    /// The same device joined with the same invite before: nothing new (its notice is resent).
    case again(JoinRecord)
    /// Refused; the reason goes back to the joiner as it is (no secret in it).
    case refused(String)

    static let notRecognised = "invite not recognised (wrong secret, tampered, or not from this Homebase)"
    static let expired = "invite expired"
    static let used = "invite already used"
    static let withdrawn = "invite withdrawn by the host (a grant made with it was revoked)"
}

extension SharingStore {
    public func createInvite(_ invite: StoredInvite) throws(HomebaseError) {
        try storing {
            _ = try db.execute("""
                INSERT INTO invites(invite_id, secret, models, rate_per_minute, expires_ms, max_uses, uses, approval, created_ms,
                    grant_expires_ms, retired, tools, budget)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, invite.inviteID.bytes, invite.secret, ColumnJSON.encode(invite.models), Int64(invite.ratePerMinute),
                invite.expiresMs, invite.maxUses, invite.uses, invite.approval, invite.createdMs, invite.grantExpiresMs,
                invite.retired, invite.tools, invite.budget?.description)
        }
    }

    public func invites() throws(HomebaseError) -> [StoredInvite] {
        try storing { try Self.invites(try db.query(Self.inviteColumns + " ORDER BY created_ms")) }
    }

    /// Checks `proof` against every invite (the join names none: only its secret's holder can
    /// make the proof), then decides: the same joiner again, retired, expired, used up, pending, granted.
    func admitJoin(proof: [UInt8], joiner: DeviceRecord, accountName: String, host: PublicKey,
                   nowMs: Int64) throws(HomebaseError) -> JoinDecision {
        let record = joiner.encoded
        return try storing {
            try db.transaction { tx -> JoinDecision in
                let all = try Self.invites(try tx.query(Self.inviteColumns))
                guard let invite = all.first(where: {
                    InviteProof.matches(proof, secret: $0.secret, host: host, joinerRecord: record)
                }) else { return .refused(JoinDecision.notRecognised) }
                if let earlier = Self.joins(try tx.query(Self.joinColumns + " WHERE invite_id = ? AND joiner_key = ?",
                                                             invite.inviteID.bytes, joiner.signingKey.bytes)).first {
                    return .again(earlier)
                }
                guard !invite.retired else { return .refused(JoinDecision.withdrawn) }
                guard nowMs < invite.expiresMs else { return .refused(JoinDecision.expired) }
                guard invite.uses < invite.maxUses else { return .refused(JoinDecision.used) }
                let join = JoinRecord(grantID: Bytes16(unchecked: randomBytes(count: 16)), inviteID: invite.inviteID,
                                      joiner: joiner, accountName: accountName,
                                      state: invite.approval ? .pending : .granted, grantSent: false,
                                      revokeSent: false, createdMs: nowMs)
                _ = try tx.execute("UPDATE invites SET uses = uses + 1 WHERE invite_id = ?", invite.inviteID.bytes)
                _ = try tx.execute("""
                    INSERT INTO joins(grant_id, invite_id, joiner_key, joiner_record, account_name, state, created_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, join.grantID.bytes, join.inviteID.bytes, joiner.signingKey.bytes, record, accountName,
                    join.state.rawValue, nowMs)
                return invite.approval ? .pending(join) : .granted(join)
            }
        }
    }

    public func joins() throws(HomebaseError) -> [JoinRecord] {
        try storing { Self.joins(try db.query(Self.joinColumns + " ORDER BY created_ms")) }
    }

    /// Joins whose joiner is still to be told something: a grant not sent, a revoke not sent.
    func joinsWithNoticeDue() throws(HomebaseError) -> [JoinRecord] {
        try storing {
            Self.joins(try db.query(Self.joinColumns + """
                 WHERE (state = 'granted' AND grant_sent = 0) OR (state IN ('revoked', 'refused') AND revoke_sent = 0)
                 ORDER BY created_ms
                """))
        }
    }

    public func join(_ grantID: Bytes16) throws(HomebaseError) -> JoinRecord? {
        try storing { Self.joins(try db.query(Self.joinColumns + " WHERE grant_id = ?", grantID.bytes)).first }
    }

    public func invite(_ id: Bytes16) throws(HomebaseError) -> StoredInvite? {
        try storing { try Self.invites(try db.query(Self.inviteColumns + " WHERE invite_id = ?", id.bytes)).first }
    }

    /// The invite admits no one new (its joins and grants stay as they are).
    func retireInvite(_ id: Bytes16) throws(HomebaseError) {
        _ = try storing { try db.execute("UPDATE invites SET retired = 1 WHERE invite_id = ?", id.bytes) }
    }

    /// Moves a join to `state`; a new state is a new notice (sent flags cleared accordingly).
    func setState(_ grantID: Bytes16, _ state: JoinRecord.State) throws(HomebaseError) {
        let n = try storing {
            try db.execute("UPDATE joins SET state = ?, revoke_sent = 0 WHERE grant_id = ?", state.rawValue, grantID.bytes)
        }
        guard n == 1 else { throw .sharing("no join with that id") }
    }

    /// The joiner was told (the relay stored its `grant` or `revoke`); `false` asks for it to be sent again.
    func markSent(_ grantID: Bytes16, grant: Bool? = nil, revoke: Bool? = nil) throws(HomebaseError) {
        try storing {
            if let grant { _ = try db.execute("UPDATE joins SET grant_sent = ? WHERE grant_id = ?", grant, grantID.bytes) }
            if let revoke { _ = try db.execute("UPDATE joins SET revoke_sent = ? WHERE grant_id = ?", revoke, grantID.bytes) }
        }
    }

    static let inviteColumns = """
        SELECT invite_id, secret, models, rate_per_minute, expires_ms, max_uses, uses, approval, created_ms,
            grant_expires_ms, retired, tools, budget FROM invites
        """
    static let joinColumns = """
        SELECT grant_id, invite_id, joiner_record, account_name, state, grant_sent, revoke_sent, created_ms FROM joins
        """

    static func invites(_ rows: [Row]) throws -> [StoredInvite] {
        try rows.map { r in
            guard let id = Bytes16(try r.get(0, as: [UInt8].self)) else { throw HomebaseError.storage("bad invite id") }
            return StoredInvite(inviteID: id, secret: try r.get(1), models: ColumnJSON.decode([String].self, try r.get(2)) ?? [],
                                ratePerMinute: UInt32(clamping: try r.get(3, as: Int64.self)), expiresMs: try r.get(4),
                                maxUses: try r.get(5), uses: try r.get(6), approval: try r.get(7), createdMs: try r.get(8),
                                grantExpiresMs: try r.get(9), retired: try r.get(10), tools: try r.get(11),
                                budget: (try r.get(12, as: String?.self)).flatMap(TokenBudget.parse))
        }
    }

    /// Join rows this version can read; the rest are skipped (`skippedRows()` reports them).
    static func joins(_ rows: [Row]) -> [JoinRecord] { readJoins(rows).joins }

    static func readJoins(_ rows: [Row]) -> (joins: [JoinRecord], skipped: [SkippedRow]) {
        var joins: [JoinRecord] = [], skipped: [SkippedRow] = []
        for r in rows {
            do {
                guard let id = Bytes16(try r.get(0, as: [UInt8].self)), let invite = Bytes16(try r.get(1, as: [UInt8].self)),
                      let state = JoinRecord.State(rawValue: try r.get(4)) else { throw HomebaseError.storage("bad join row") }
                joins.append(JoinRecord(grantID: id, inviteID: invite,
                                        joiner: try DeviceRecord(encoded: try r.get(2, as: [UInt8].self)),
                                        accountName: try r.get(3), state: state, grantSent: try r.get(5),
                                        revokeSent: try r.get(6), createdMs: try r.get(7)))
            } catch {
                skipped.append(SkippedRow(table: "joins", key: hex((try? r.get(0, as: [UInt8].self)) ?? []),
                                          reason: "its joiner record does not verify (\(error))"))
            }
        }
        return (joins, skipped)
    }

    /// The join rows `joins()` skips.
    public func skippedRows() throws(HomebaseError) -> [SkippedRow] {
        try storing { Self.readJoins(try db.query(Self.joinColumns)).skipped }
    }
}
