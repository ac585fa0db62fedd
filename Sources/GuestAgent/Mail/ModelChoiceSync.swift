import Routing
import Signing
import Storage
import Wire

/// The model choices this device shares with its siblings (`model-choice` mail), and the
/// last-writer-wins state that keeps every device on the same choice without loops.
///
/// A choice is one of three kinds, carried in the message's model id as `KIND:VALUE`:
/// `ollama:TAG` (the `ollama.model` setting), `source:on-device|community|external`
/// (`model.source`) and `local:ID` (the on-device model, `guest models use ID`).
///
/// Per kind, the winner is the choice with the greatest (sequence, origin device key). A local
/// change takes the sequence above every one seen for its kind, so it wins everywhere. A
/// choice received is applied and never sent on: only a person's change sends (no A→B→A loop).
/// A received sequence more than `maxJump` above the highest seen is refused: a sibling could
/// otherwise pin the kind at the top of the range, where no later change can beat it.
public struct ModelChoiceSync: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case ollama, source, local

        /// The kind a routing setting is synced as (nil: that setting is not synced).
        public init?(setting: SettingName) {
            switch setting {
            case .ollamaModel: self = .ollama
            case .modelSource: self = .source
            default: return nil
            }
        }

        var setting: SettingName? {
            switch self {
            case .ollama: .ollamaModel
            case .source: .modelSource
            case .local: nil
            }
        }

        /// The kind under which a newer choice replaces the older one in a mailbox (the relay sees
        /// only `Courier.collapseKey` of it, never this).
        var collapseKind: String { "model-choice " + rawValue }
    }

    public let database: Database
    /// How far above the highest sequence seen for a kind (0 when none) a received one may be:
    /// 1,000,000, far more than a person's changes (each takes one), far too few to climb to
    /// 2^63 in any number of messages anyone will send.
    public static let maxJump: UInt64 = 1_000_000
    /// The highest sequence ever stored (the column is a signed 64-bit integer).
    static let maxSequence = UInt64(Int64.max)

    public init(database: Database) { self.database = database }

    static let table = """
        CREATE TABLE IF NOT EXISTS model_choice(kind TEXT PRIMARY KEY, value TEXT NOT NULL,
            sequence INTEGER NOT NULL, origin BLOB NOT NULL)
        """

    /// `KIND:VALUE` for the wire.
    public static func modelID(_ kind: Kind, _ value: String) -> String { kind.rawValue + ":" + value }

    /// The kind and value of a model id; nil for an id of another form.
    public static func parse(_ modelID: String) -> (Kind, String)? {
        guard let colon = modelID.firstIndex(of: ":"), let kind = Kind(rawValue: String(modelID[..<colon])) else { return nil }
        let value = String(modelID[modelID.index(after: colon)...])
        return value.isEmpty ? nil : (kind, value)
    }

    /// Records a change made here and returns the message to mail to the siblings.
    public func local(_ kind: Kind, _ value: String, origin: PublicKey, vision: Bool = false) throws -> AppMessage.ModelChoice {
        try database.transaction { tx in
            _ = try tx.execute(Self.table)
            let seen = try tx.query("SELECT sequence FROM model_choice WHERE kind = ?", kind.rawValue).first
                .map { try $0.get(0, as: Int64.self) } ?? 0
            let (sequence, overflow) = seen.addingReportingOverflow(1)
            guard !overflow, sequence > 0, sequence < Int64.max else {
                throw GuestError.badFile(path: "model_choice", detail: "the \(kind.rawValue) choice's sequence is exhausted")
            }
            try Self.store(tx, kind, value, sequence, origin.bytes)
            return AppMessage.ModelChoice(modelID: Self.modelID(kind, value), vision: vision, sequence: UInt64(sequence),
                                          originDevice: origin)
        }
    }

    /// A sibling's choice: recorded and returned when it wins over what this device holds,
    /// nil when it does not (older, or the same one again).
    public func accept(_ c: AppMessage.ModelChoice) throws -> (Kind, String)? {
        guard case let (kind, value)? = Self.parse(c.modelID), c.sequence < Self.maxSequence else { return nil }
        return try database.transaction { tx in
            _ = try tx.execute(Self.table)
            var seen: UInt64 = 0
            if let row = try tx.query("SELECT sequence, origin FROM model_choice WHERE kind = ?", kind.rawValue).first {
                let seq = UInt64(clamping: try row.get(0, as: Int64.self)), origin = try row.get(1, as: [UInt8].self)
                let newer = c.sequence > seq || (c.sequence == seq && origin.lexicographicallyPrecedes(c.originDevice.bytes))
                guard newer else { return nil }
                seen = seq
            }
            guard c.sequence - seen <= Self.maxJump else { return nil }  // c.sequence >= seen here
            try Self.store(tx, kind, value, Int64(c.sequence), c.originDevice.bytes)
            return (kind, value)
        }
    }

    private static func store(_ tx: Transaction, _ kind: Kind, _ value: String, _ seq: Int64, _ origin: [UInt8]) throws {
        _ = try tx.execute("""
            INSERT INTO model_choice(kind, value, sequence, origin) VALUES (?, ?, ?, ?)
            ON CONFLICT(kind) DO UPDATE SET value = excluded.value, sequence = excluded.sequence, origin = excluded.origin
            """, kind.rawValue, value, seq, origin)
    }
}
