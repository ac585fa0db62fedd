import Signing
import Storage
import Wire

/// The own account's Homebase adverts: the last accepted one per host key, with its receipt
/// time. The router reads it through `OwnAdvertSource`.
///
/// Accepts an advert only when it is signed by the account's host key and its sequence is
/// above the last accepted (so a replayed or reordered advert never revives an old list).
public final class OwnAdvertStore: OwnAdvertSource, Sendable {
    private let db: Database
    private let clock: any WallClock
    /// The account's host key: the only key whose adverts count as "own".
    public let accountHostKey: PublicKey

    public init(database: Database, accountHostKey: PublicKey, clock: any WallClock = SystemWallClock()) {
        db = database
        self.accountHostKey = accountHostKey
        self.clock = clock
    }

    /// Verifies and stores `advert`, received after the relay held it `heldMs` ms.
    /// Returns what was stored. Throws `.wrongHost`, `.badSignature`, `.staleSequence`.
    @discardableResult
    public func accept(_ advert: AppMessage.Advert, heldMs: UInt64) throws(RoutingError) -> ReceivedAdvert {
        try advert.verify(from: accountHostKey)
        let received = ReceivedAdvert(advert: advert, receiptMs: receiptTime(nowMs: clock.nowMs(), heldMs: heldMs))
        let encoded: [UInt8]
        do { encoded = try AppMessage.advert(advert).encode() } catch { throw .malformedAdvert(error.description) }
        let key = accountHostKey.bytes
        let outcome: UInt64? = try storing {
            try db.transaction { tx -> UInt64? in
                // Compared here, inside the write transaction, so two receivers cannot both win.
                if let row = try tx.query("SELECT sequence FROM own_adverts WHERE host_key = ?", key).first {
                    let last = UInt64(bitPattern: try row.get(0, as: Int64.self))
                    if advert.sequence <= last { return last }
                }
                try tx.execute("""
                    INSERT INTO own_adverts(host_key, sequence, receipt_ms, host_timestamp_ms, advert)
                    VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(host_key) DO UPDATE SET sequence = excluded.sequence,
                        receipt_ms = excluded.receipt_ms, host_timestamp_ms = excluded.host_timestamp_ms,
                        advert = excluded.advert
                    """, key, Int64(bitPattern: advert.sequence), received.receiptMs,
                    Int64(bitPattern: advert.timestampMs), encoded)
                return nil
            }
        }
        if let last = outcome { throw .staleSequence(received: advert.sequence, lastAccepted: last) }
        return received
    }

    /// The last accepted advert of the account's host. A stored blob that no longer decodes,
    /// or names another host, reads as none (it routes on-device, never fails).
    public func latestOwnAdvert() throws -> ReceivedAdvert? {
        let rows = try storing {
            try db.query("SELECT receipt_ms, advert FROM own_adverts WHERE host_key = ?", accountHostKey.bytes)
        }
        guard let row = rows.first,
              let receipt = try? row.get(0, as: Int64.self), let blob = try? row.get(1, as: [UInt8].self),
              case .advert(let advert)? = try? AppMessage.decode(blob),
              advert.hostKey == accountHostKey else { return nil }
        return ReceivedAdvert(advert: advert, receiptMs: receipt)
    }

    /// The sequence number an advert must exceed to be accepted; nil before the first.
    public func lastAcceptedSequence() throws(RoutingError) -> UInt64? {
        try storing {
            try db.query("SELECT sequence FROM own_adverts WHERE host_key = ?", accountHostKey.bytes)
                .first.map { UInt64(bitPattern: try $0.get(0, as: Int64.self)) }
        }
    }
}
