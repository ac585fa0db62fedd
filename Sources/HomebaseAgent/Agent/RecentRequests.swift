import Signing

/// The last requests this Homebase answered or refused, for `homebase status --serve`: when,
/// how long, how it ended and who asked (a sibling's device name, or the grant). Never the
/// prompt, the model's text, or anything the requester wrote.
public struct RecentRequest: Codable, Sendable, Equatable {
    public var startedMs: Int64
    public var durationMs: Int64
    /// The outcome's name, as in `outcomes`: done, busy, requester-gone, ...
    public var outcome: String
    /// "laptop" (a sibling), "grant 0a1b2c3d… (Ann's phone)" (a grantee), or the key's first digits.
    public var who: String
    public var model: String
}

/// A bounded ring: the newest `capacity` entries, oldest first.
struct RecentRing: Sendable, Equatable {
    static let capacity = 50
    private(set) var entries: [RecentRequest] = []

    mutating func add(_ r: RecentRequest) {
        entries.append(r)
        if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
    }
}
