import Courier
import Sealing
import Signing
import Synchronization

/// Who this guest talks to through the relay: the devices of the last accepted roster, plus
/// the Homebase record given with `guest relay set --homebase` (needed to open the first
/// roster, which that Homebase sends). Swapped whole when a newer roster arrives.
public final class GuestDirectory: DeviceDirectory {
    private struct State {
        var bootstrap: DeviceRecord?
        var roster: [PublicKey: DeviceRecord] = [:]
    }

    private let state: Mutex<State>
    /// Our own key: never a peer.
    public let me: PublicKey

    public init(me: PublicKey, bootstrap: DeviceRecord?, roster: [DeviceRecord]) {
        self.me = me
        var s = State(bootstrap: bootstrap)
        for r in roster where r.signingKey != me { s.roster[r.signingKey] = r }
        state = Mutex(s)
    }

    public func record(for key: PublicKey) -> DeviceRecord? {
        state.withLock { s in
            if let r = s.roster[key] { return r }
            if let b = s.bootstrap, b.signingKey == key { return b }
            return nil
        }
    }

    /// True when `key` is listed by the accepted roster (the bootstrap record alone is not).
    public func inRoster(_ key: PublicKey) -> Bool { state.withLock { $0.roster[key] != nil } }

    /// Devices of the accepted roster, ourselves excluded.
    public var siblings: [DeviceRecord] { state.withLock { Array($0.roster.values) } }

    public func replaceRoster(_ records: [DeviceRecord]) {
        var fresh: [PublicKey: DeviceRecord] = [:]
        for r in records where r.signingKey != me { fresh[r.signingKey] = r }
        state.withLock { $0.roster = fresh }
    }
}
