import Pairing
import Sealing
import Signing
import Wire

extension HostFiles {
    /// Invites and joins (`SharingStore`).
    public var sharingPath: String { dataDir + "/sharing.sqlite3" }

    public func openSharing() throws(HomebaseError) -> SharingStore { try SharingStore(path: sharingPath) }
}

/// The state changes of sharing that both the CLI and the running agent make. The running
/// agent notices them on its next reload tick and tells the joiner (`deliverSharingNotices`).
package enum SharingActions {
    /// Makes the grant a granted join stands for, with its invite's models, rate, grant expiry
    /// and whether it allows tools.
    static func grant(_ join: JoinRecord, sharing: SharingStore, store: HostStore, nowMs: Int64) throws(HomebaseError) {
        guard let invite = try sharing.invite(join.inviteID) else { throw .sharing("the join's invite is gone") }
        let end = invite.grantEnd
        if end != 0 && nowMs >= end {
            throw .sharing("the grant would have expired at \(PairingError.time(end)): make a new invite (homebase share)")
        }
        try store.saveGrant(GrantRecord(grantID: join.grantID, grantee: join.joiner, models: invite.models,
                                        ratePerMinute: invite.ratePerMinute, expiresMs: end, createdMs: nowMs,
                                        tools: invite.tools, budget: invite.budget))
        try sharing.setState(join.grantID, .granted)
    }

    /// `homebase grants approve ID`: a pending join becomes a grant.
    package static func approve(_ id: Bytes16, sharing: SharingStore, store: HostStore, nowMs: Int64) throws(HomebaseError) -> JoinRecord {
        guard let join = try sharing.join(id) else { throw .sharing("no join waiting with id \(hex(id.bytes))") }
        guard join.state == .pending else { throw .sharing("join \(hex(id.bytes)) is \(join.state.rawValue), not pending") }
        try grant(join, sharing: sharing, store: store, nowMs: nowMs)
        return join
    }

    /// `homebase grants revoke ID`: a grant is revoked (its grantee hears `revoked` and a notice)
    /// and its invite retired (no one new joins with it, even with uses left); a pending join is
    /// refused. Returns what was done, for people.
    package static func revoke(_ id: Bytes16, sharing: SharingStore, store: HostStore) throws(HomebaseError) -> String {
        let join = try sharing.join(id)
        switch join?.state {
        case .pending?:
            try sharing.setState(id, .refused)
            return "refused \(hex(id.bytes)) (it waited for approval)"
        case .refused?, .revoked?:
            throw .sharing("\(hex(id.bytes)) is already \(join!.state.rawValue)")
        case .granted?, nil:
            guard try store.grants().contains(where: { $0.grantID == id }) else {
                throw .sharing("no grant or join with id \(hex(id.bytes)) (homebase grants list)")
            }
            try store.revokeGrant(id)
            guard let join else { return "revoked \(hex(id.bytes))" }
            try sharing.setState(id, .revoked)
            let invite = try sharing.invite(join.inviteID)
            try sharing.retireInvite(join.inviteID)
            let left = invite.map { max(0, $0.maxUses - $0.uses) } ?? 0
            return "revoked \(hex(id.bytes)); its invite is retired: no one else can join with it"
                + (left > 0 ? " (\(left) use\(left == 1 ? " was" : "s were") left)" : "")
        }
    }
}
