import Sealing
import Signing
import Storage
import Wire

/// Another account's device allowed to use some models here. The sharing flows (invite, join,
/// grant, revoke messages) will write these; the serving path only reads them.
public struct GrantRecord: Sendable, Equatable {
    public var grantID: Bytes16
    /// The grantee device: its record is what the Courier opens its envelopes with.
    public var grantee: DeviceRecord
    public var models: [String]
    public var ratePerMinute: UInt32
    /// Unix ms; 0 = never expires.
    public var expiresMs: Int64
    /// A revoked grant stays listed so its grantee hears `revoked` rather than silence.
    public var revoked: Bool
    public var createdMs: Int64
    /// The grantee may send requests that carry tools (`homebase share --tools`).
    public var tools: Bool
    /// Tokens the grantee may use a day or a month (`homebase share --tokens`); nil: no budget.
    public var budget: TokenBudget?

    public init(grantID: Bytes16, grantee: DeviceRecord, models: [String], ratePerMinute: UInt32 = 0,
                expiresMs: Int64 = 0, revoked: Bool = false, createdMs: Int64, tools: Bool = false,
                budget: TokenBudget? = nil) {
        self.grantID = grantID; self.grantee = grantee; self.models = models; self.ratePerMinute = ratePerMinute
        self.expiresMs = expiresMs; self.revoked = revoked; self.createdMs = createdMs; self.tools = tools
        self.budget = budget
    }

    /// In force at `nowMs` (not revoked, not expired).
    public func isActive(nowMs: Int64) -> Bool { !revoked && (expiresMs == 0 || nowMs < expiresMs) }
}

extension HostStore {
    /// Every grant; a row this version cannot read is skipped (`skippedRows()` reports it).
    public func grants() throws(HomebaseError) -> [GrantRecord] {
        try grantRows("").grants
    }

    /// One grantee's grants: what a request re-reads (decoding every grant's record per request
    /// cost 1,000 signature checks each with 1,000 grantees).
    public func grants(grantee: PublicKey) throws(HomebaseError) -> [GrantRecord] {
        try grantRows("WHERE grantee_key = ?", grantee.bytes).grants
    }

    func grantRows(_ filter: String, _ arguments: any SQLBindable...) throws(HomebaseError)
        -> (grants: [GrantRecord], skipped: [SkippedRow]) {
        let rows = try storing {
            try db.query("""
                SELECT grant_id, grantee_record, models, rate_per_minute, expires_ms, revoked, created_ms, tools, budget
                FROM grants \(filter) ORDER BY created_ms, grant_id
                """, parameters: arguments)
        }
        var grants: [GrantRecord] = [], skipped: [SkippedRow] = []
        for r in rows {
            do {
                guard let id = Bytes16(try r.get(0, as: [UInt8].self)) else { throw HomebaseError.storage("bad grant id") }
                grants.append(GrantRecord(grantID: id, grantee: try DeviceRecord(encoded: try r.get(1, as: [UInt8].self)),
                                          models: ColumnJSON.decode([String].self, try r.get(2)) ?? [],
                                          ratePerMinute: UInt32(clamping: try r.get(3, as: Int64.self)),
                                          expiresMs: try r.get(4), revoked: try r.get(5), createdMs: try r.get(6),
                                          tools: try r.get(7), budget: (try r.get(8, as: String?.self)).flatMap(TokenBudget.parse)))
            } catch {
                skipped.append(SkippedRow(table: "grants", key: hex((try? r.get(0, as: [UInt8].self)) ?? []),
                                          reason: "its grantee record does not verify (\(error))"))
            }
        }
        return (grants, skipped)
    }

    /// Stores a grant (replacing one with the same id).
    public func saveGrant(_ g: GrantRecord) throws(HomebaseError) {
        try storing {
            try db.execute("""
                INSERT INTO grants(grant_id, grantee_key, grantee_record, models, rate_per_minute, expires_ms, revoked, created_ms,
                    tools, budget)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(grant_id) DO UPDATE SET grantee_key = excluded.grantee_key,
                    grantee_record = excluded.grantee_record, models = excluded.models,
                    rate_per_minute = excluded.rate_per_minute, expires_ms = excluded.expires_ms,
                    revoked = excluded.revoked, tools = excluded.tools, budget = excluded.budget
                """, g.grantID.bytes, g.grantee.signingKey.bytes, g.grantee.encoded, ColumnJSON.encode(g.models),
                Int64(g.ratePerMinute), g.expiresMs, g.revoked, g.createdMs, g.tools, g.budget?.description)
        }
    }

    /// Marks a grant revoked (kept, so its grantee is told `revoked`).
    public func revokeGrant(_ id: Bytes16) throws(HomebaseError) {
        let n = try storing { try db.execute("UPDATE grants SET revoked = 1 WHERE grant_id = ?", id.bytes) }
        guard n == 1 else { throw .storage("no grant with that id") }
    }
}
