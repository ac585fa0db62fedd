import Signing

/// A host that said it went to sleep (the `away` message beside its advert listing no models,
/// SPEC section 6 "Adverts"). Words only: the empty advert already routes nothing to it.
public struct AwayMark: Sendable, Equatable, Codable {
    /// The host's signing key, hex.
    public var host: String
    /// The advert (listing no models) it came with: the mark holds while that is the newest.
    public var advertSequence: UInt64
    /// The host's clock at the goodbye (Unix ms), for people.
    public var sinceMs: Int64
    /// This device's clock at receipt: a joined host's later advert (heard after it) ends it.
    public var receivedMs: Int64

    public init(host: String, advertSequence: UInt64, sinceMs: Int64, receivedMs: Int64) {
        self.host = host; self.advertSequence = advertSequence; self.sinceMs = sinceMs; self.receivedMs = receivedMs
    }
}

/// Where the router reads away marks (the guest's file; tests: a fixed list).
public protocol AwaySource: Sendable {
    func away(of host: PublicKey) -> AwayMark?
}

extension Router {
    /// "asleep (said goodbye at HH:MM UTC)" when the own Homebase's newest advert, `sequence`,
    /// is the one its away message named; nil otherwise.
    func asleep(_ host: PublicKey, advertSequence: UInt64) -> String? {
        guard let mark = away?.away(of: host), mark.advertSequence == advertSequence else { return nil }
        return AwayMark.words(mark)
    }

    /// The same for a joined Homebase (its record keeps no sequence): the mark holds when it
    /// was received no earlier than the host was last heard (its empty advert came just before).
    func asleep(_ host: PublicKey, heardMs: Int64?) -> String? {
        guard let mark = away?.away(of: host), mark.receivedMs >= (heardMs ?? 0) else { return nil }
        return AwayMark.words(mark)
    }
}

extension AwayMark {
    static func words(_ mark: AwayMark) -> String {
        "asleep (said goodbye at \(Cooldown.clock(mark.sinceMs).prefix(5)) UTC)"
    }
}
