import Signing
import Storage

/// One row of usage: a requesting device, a model, a UTC day. Counts only, never text.
public struct UsageRow: Sendable, Equatable, Codable {
    /// The requesting device's signing key (hex).
    public var requester: String
    /// A device of this account (false: a grantee).
    public var own: Bool
    public var model: String
    /// `yyyy-mm-dd`, UTC.
    public var day: String
    public var requests: Int64
    public var tokensIn: Int64
    public var tokensOut: Int64
}

extension HostStore {
    /// Adds one answered request's tokens (as the engine reported them) to its day's row.
    public func recordUsage(requester: PublicKey, own: Bool, model: String, day: String,
                            tokensIn: Int64, tokensOut: Int64) throws(HomebaseError) {
        try storing {
            try db.execute("""
                INSERT INTO usage(requester, own, model, day, requests, tokens_in, tokens_out) VALUES (?, ?, ?, ?, 1, ?, ?)
                ON CONFLICT(requester, model, day) DO UPDATE SET requests = requests + 1,
                    tokens_in = tokens_in + excluded.tokens_in, tokens_out = tokens_out + excluded.tokens_out
                """, requester.bytes, own, model, day, tokensIn, tokensOut)
        }
    }

    /// Tokens in and out one device used from `firstDay` (inclusive) on: what a budget counts.
    public func tokensUsed(by requester: PublicKey, since firstDay: String) throws(HomebaseError) -> Int64 {
        try storing {
            let rows = try db.query("SELECT COALESCE(SUM(tokens_in + tokens_out), 0) FROM usage WHERE requester = ? AND day >= ?",
                                    parameters: [requester.bytes, firstDay])
            return try rows.first?.get(0, as: Int64.self) ?? 0
        }
    }

    /// Every usage row, by requester, day, model.
    public func usage() throws(HomebaseError) -> [UsageRow] {
        try storing {
            try db.query("""
                SELECT requester, own, model, day, requests, tokens_in, tokens_out FROM usage ORDER BY requester, day, model
                """).map { r in
                UsageRow(requester: hex(try r.get(0, as: [UInt8].self)), own: try r.get(1), model: try r.get(2), day: try r.get(3),
                         requests: try r.get(4), tokensIn: try r.get(5), tokensOut: try r.get(6))
            }
        }
    }
}
