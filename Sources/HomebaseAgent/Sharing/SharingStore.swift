import Sealing
import Signing
import Storage
import Wire

/// Invites this Homebase handed out and the joins they brought, in `sharing.sqlite3` beside
/// the host store (its own file, so its migrations never interleave with the host store's).
/// Grants themselves live in the host store, where the serving path reads them; a join row
/// remembers what is still to be told to its joiner (`grant` sent, `revoke` sent).
///
/// Written by CLI commands (`share`, `grants approve|revoke`) and by the running agent (joins);
/// every write is one transaction.
public final class SharingStore: Sendable {
    static let schema = Schema(applicationID: 0x4842_5348, migrations: [  // "HBSH"
        """
        CREATE TABLE invites(invite_id BLOB PRIMARY KEY, secret BLOB NOT NULL, models TEXT NOT NULL,
            rate_per_minute INTEGER NOT NULL, expires_ms INTEGER NOT NULL, max_uses INTEGER NOT NULL,
            uses INTEGER NOT NULL DEFAULT 0, approval INTEGER NOT NULL, created_ms INTEGER NOT NULL);
        CREATE TABLE joins(grant_id BLOB PRIMARY KEY, invite_id BLOB NOT NULL, joiner_key BLOB NOT NULL,
            joiner_record BLOB NOT NULL, account_name TEXT NOT NULL, state TEXT NOT NULL,
            grant_sent INTEGER NOT NULL DEFAULT 0, revoke_sent INTEGER NOT NULL DEFAULT 0,
            created_ms INTEGER NOT NULL, UNIQUE(invite_id, joiner_key));
        """,
        // Grants end (NULL: with the invite, as before they had their own end); a revoked grant
        // retires its invite.
        """
        ALTER TABLE invites ADD COLUMN grant_expires_ms INTEGER;
        ALTER TABLE invites ADD COLUMN retired INTEGER NOT NULL DEFAULT 0;
        """,
        // #23: the grants an invite makes may allow tools (`homebase share --tools`).
        """
        ALTER TABLE invites ADD COLUMN tools INTEGER NOT NULL DEFAULT 0;
        """,
        // #21: the grants an invite makes may carry a token budget (`homebase share --tokens 200k/day`).
        """
        ALTER TABLE invites ADD COLUMN budget TEXT;
        """,
    ])

    let db: Database

    public init(path: String) throws(HomebaseError) {
        do { db = try Database(path: path, schema: Self.schema) } catch { throw .storage("\(error)") }
    }

    public func close() { db.close() }

    func storing<T>(_ body: () throws -> T) throws(HomebaseError) -> T {
        do { return try body() } catch let e as HomebaseError { throw e } catch { throw .storage("\(error)") }
    }
}

/// One invite as the host keeps it (its secret included: it checks join proofs).
public struct StoredInvite: Sendable, Equatable {
    public var inviteID: Bytes16
    public var secret: [UInt8]
    public var models: [String]
    public var ratePerMinute: UInt32
    /// Unix ms after which joins are refused as expired.
    public var expiresMs: Int64
    /// Joins it admits (distinct devices); 1 = single use.
    public var maxUses: Int
    public var uses: Int
    /// Joins wait for `homebase grants approve ID`.
    public var approval: Bool
    public var createdMs: Int64
    /// Unix ms when the grants it makes expire; 0 = never; nil = with the invite (`expiresMs`).
    public var grantExpiresMs: Int64?
    /// A grant made with it was revoked: it admits no one new.
    public var retired = false
    /// The grants it makes allow requests that carry tools (`homebase share --tools`).
    public var tools = false
    /// The grants it makes carry this token budget (nil: none).
    public var budget: TokenBudget? = nil

    /// When the grants it makes expire (0: never).
    public var grantEnd: Int64 { grantExpiresMs ?? expiresMs }

    // Spelled out: the memberwise one is internal, and `homebase share` (the executable) makes one.
    package init(inviteID: Bytes16, secret: [UInt8], models: [String], ratePerMinute: UInt32, expiresMs: Int64,
                 maxUses: Int, uses: Int, approval: Bool, createdMs: Int64, grantExpiresMs: Int64? = nil,
                 retired: Bool = false, tools: Bool = false, budget: TokenBudget? = nil) {
        self.inviteID = inviteID; self.secret = secret; self.models = models; self.ratePerMinute = ratePerMinute
        self.expiresMs = expiresMs; self.maxUses = maxUses; self.uses = uses; self.approval = approval
        self.createdMs = createdMs; self.grantExpiresMs = grantExpiresMs; self.retired = retired; self.tools = tools
        self.budget = budget
    }
}

/// A device that joined (or asked to) with an invite.
public struct JoinRecord: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Waiting for `homebase grants approve`.
        case pending
        /// A grant exists in the host store under `grantID`.
        case granted
        /// Approval mode: the owner said no.
        case refused
        /// The grant was revoked.
        case revoked
    }

    public var grantID: Bytes16
    public var inviteID: Bytes16
    public var joiner: DeviceRecord
    public var accountName: String
    public var state: State
    public var grantSent: Bool
    public var revokeSent: Bool
    public var createdMs: Int64
}
