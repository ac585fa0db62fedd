import Courier
import Sealing
import Signing
import Synchronization

/// Who may talk to this host: the roster's devices, and every grantee while one of its grants
/// is in force (checked at each lookup, so a grant that expires stops its grantee at once).
/// A grantee whose grants are all revoked or expired is dropped unopened (counted as an
/// unknown sender): it cannot spend the host's work, nor touch replay or part state; it
/// learns of a revoke from the notice mailed to it. Swapped whole on each reload.
final class HostDirectory: DeviceDirectory {
    private struct Entry {
        var record: DeviceRecord
        /// Nil for the account's own devices.
        var grants: [GrantRecord]?
    }

    private let entries = Mutex<[PublicKey: Entry]>([:])
    private let now: @Sendable () -> Int64

    init(now: @escaping @Sendable () -> Int64 = { nowMs() }) { self.now = now }

    func record(for key: PublicKey) -> DeviceRecord? {
        let t = now()
        return entries.withLock { e in
            guard let entry = e[key] else { return nil }
            guard let grants = entry.grants else { return entry.record }
            return grants.contains { $0.isActive(nowMs: t) } ? entry.record : nil
        }
    }

    func isOwnDevice(_ key: PublicKey) -> Bool { entries.withLock { $0[key].map { $0.grants == nil } ?? false } }

    /// The siblings, and the grantees with their grants (a sibling that is also a grantee is a sibling).
    func replace(siblings: [PublicKey: DeviceRecord], grants: [PublicKey: [GrantRecord]]) {
        var all: [PublicKey: Entry] = [:]
        for (key, list) in grants { if let first = list.first { all[key] = Entry(record: first.grantee, grants: list) } }
        for (key, record) in siblings { all[key] = Entry(record: record) }
        entries.withLock { $0 = all }
    }
}
