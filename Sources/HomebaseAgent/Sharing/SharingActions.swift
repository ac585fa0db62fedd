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
enum SharingActions {
    /// Makes the grant a granted join stands for, with its invite's models and rate.
    static func grant(_ join: JoinRecord, sharing: SharingStore, store: HostStore, nowMs: Int64) throws(HomebaseError) {
        guard let invite = try sharing.invite(join.inviteID) else { throw .sharing("the join's invite is gone") }
        try store.saveGrant(GrantRecord(grantID: join.grantID, grantee: join.joiner, models: invite.models,
                                        ratePerMinute: invite.ratePerMinute, createdMs: nowMs))
        try sharing.setState(join.grantID, .granted)
    }

    /// `homebase grants approve ID`: a pending join becomes a grant.
    static func approve(_ id: Bytes16, sharing: SharingStore, store: HostStore, nowMs: Int64) throws(HomebaseError) -> JoinRecord {
        guard let join = try sharing.join(id) else { throw .sharing("no join waiting with id \(hex(id.bytes))") }
        guard join.state == .pending else { throw .sharing("join \(hex(id.bytes)) is \(join.state.rawValue), not pending") }
        try grant(join, sharing: sharing, store: store, nowMs: nowMs)
        return join
    }

    /// `homebase grants revoke ID`: a grant is revoked (its grantee hears `revoked` and a notice);
    /// a pending join is refused.
    static func revoke(_ id: Bytes16, sharing: SharingStore, store: HostStore) throws(HomebaseError) -> String {
        let join = try sharing.join(id)
        switch join?.state {
        case .pending?:
            try sharing.setState(id, .refused)
            return "refused"
        case .refused?, .revoked?:
            throw .sharing("\(hex(id.bytes)) is already \(join!.state.rawValue)")
        case .granted?, nil:
            guard try store.grants().contains(where: { $0.grantID == id }) else {
                throw .sharing("no grant or join with id \(hex(id.bytes)) (homebase grants list)")
            }
            try store.revokeGrant(id)
            if join != nil { try sharing.setState(id, .revoked) }
            return "revoked"
        }
    }
}
