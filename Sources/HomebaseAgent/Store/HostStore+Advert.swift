import Storage

/// The last advert this host sent: its sequence survives restarts so receivers, which refuse
/// a sequence not above the last they accepted, never see it go back.
public struct AdvertState: Sendable, Equatable {
    public var sequence: UInt64
    public var sentMs: Int64
    public var modelCount: Int
}

extension HostStore {
    public func advertState() throws(HomebaseError) -> AdvertState? {
        let rows = try storing { try db.query("SELECT sequence, sent_ms, model_count FROM advert WHERE id = 1") }
        guard let r = rows.first else { return nil }
        return try storing {
            AdvertState(sequence: UInt64(bitPattern: try r.get(0, as: Int64.self)), sentMs: try r.get(1),
                        modelCount: try r.get(2))
        }
    }

    /// Takes the next sequence number (durably, before the advert is signed and sent). It is
    /// above every earlier one and at least `nowMs`, so even a lost store does not reuse old
    /// numbers while the clock moves forward.
    public func nextAdvertSequence(nowMs: Int64, modelCount: Int) throws(HomebaseError) -> UInt64 {
        try storing {
            try db.transaction { tx in
                let last = try tx.query("SELECT sequence FROM advert WHERE id = 1").first
                    .map { UInt64(bitPattern: try $0.get(0, as: Int64.self)) } ?? 0
                let next = max(last + 1, UInt64(max(nowMs, 0)))
                try tx.execute("""
                    INSERT INTO advert(id, sequence, sent_ms, model_count) VALUES (1, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET sequence = excluded.sequence, sent_ms = excluded.sent_ms,
                        model_count = excluded.model_count
                    """, Int64(bitPattern: next), nowMs, modelCount)
                return next
            }
        }
    }
}
