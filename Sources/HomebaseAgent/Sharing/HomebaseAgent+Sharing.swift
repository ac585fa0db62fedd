import Courier
import Sealing
import Signing
import Wire

// Sharing, on the running agent: a `join` arrives as an introduction (the joiner is unknown
// until then); a grant, a refusal or a revocation goes back as mail in an ordinary envelope
// (the join carried the joiner's record). Notices due are found in the sharing store, so a
// grant approved or revoked by the CLI is told on the next reload tick.
extension HomebaseAgent {
    /// A join: checked against every invite (`SharingStore.admitJoin`), then granted, left
    /// pending for approval, or refused with the reason sent back.
    func handleJoin(_ d: Delivery, _ j: AppMessage.Join) {
        defer { d.ack() }
        let who = "\(d.sender.signingKey.short) (\"\(j.accountName)\")"
        guard j.deviceRecord == d.sender.encoded else {
            count("join-refused")
            return log("join from \(who) refused: it names another device than its sender")
        }
        let decision: JoinDecision
        do {
            decision = try sharing.admitJoin(proof: j.secretProof.bytes, joiner: d.sender, accountName: j.accountName,
                                             host: identity.signingKey.publicKey, nowMs: nowMs())
        } catch {
            return log("join from \(who): \(error)")
        }
        do {
            switch decision {
            case .refused(let why):
                count("join-refused")
                log("join from \(who) refused: \(why)")
                mail.send(.revoke(.init(grantID: .zero, reason: why)), to: d.sender, ttl: configuration.rosterTTL,
                          collapseKey: [])
            case .pending(let join):
                count("join-pending")
                log("join from \(who) waits for approval: homebase grants approve \(hex(join.grantID.bytes))")
            case .granted(let join):
                try SharingActions.grant(join, sharing: sharing, store: store, nowMs: nowMs())
                count("join-granted")
                log("join from \(who) granted: \(hex(join.grantID.bytes))")
            case .again(let join):
                // Its answer may have been lost: told again.
                if join.state == .granted { try sharing.markSent(join.grantID, grant: false) }
                if join.state == .refused || join.state == .revoked { try sharing.markSent(join.grantID, revoke: false) }
                log("join from \(who) again: \(join.state.rawValue)")
            }
        } catch {
            log("join from \(who): \(error)")
        }
        deliverSharingNotices()
    }

    /// Mails every notice due: grants not yet sent (followed by an advert to grantees) and
    /// revocations or refusals not yet sent. While the link is down, nothing: the next tick.
    func deliverSharingNotices() {
        guard state.withLock({ $0.publishing.linkState.isConnected }) else { return }
        do {
            let due = try sharing.joinsWithNoticeDue()
            guard !due.isEmpty else { return }
            try reload()
            let grants = Dictionary(try store.grants().map { ($0.grantID, $0) }, uniquingKeysWith: { a, _ in a })
            var granted = false
            for join in due {
                switch join.state {
                case .granted:
                    guard let g = grants[join.grantID] else { continue }
                    guard queueNotice(join.grantID, grant: true) else { continue }
                    // Its terms first (same mail order), so the guest knows them once joined.
                    mail.send(.grantTerms(GrantTools.terms(g)), to: join.joiner, ttl: configuration.rosterTTL, collapseKey: [])
                    mail.send(.grant(.init(grantID: g.grantID, models: g.models, ratePerMinute: g.ratePerMinute,
                                           expiresMs: UInt64(max(0, g.expiresMs)))),
                              to: join.joiner, ttl: configuration.rosterTTL, collapseKey: [],
                              onStored: { [weak self] in self?.noticeStored(join.grantID, grant: true) })
                    granted = true
                case .revoked, .refused:
                    guard queueNotice(join.grantID, grant: false) else { continue }
                    let reason = join.state == .revoked ? "revoked by the host" : "refused by the host"
                    mail.send(.revoke(.init(grantID: join.grantID, reason: reason)), to: join.joiner,
                              ttl: configuration.rosterTTL, collapseKey: [],
                              onStored: { [weak self] in self?.noticeStored(join.grantID, grant: false) })
                case .pending:
                    continue
                }
                log("sharing: \(join.state == .granted ? "grant" : "revoke") \(hex(join.grantID.bytes)) queued")
            }
            if granted { publishAdvert(toSiblings: false, toGrantees: true) }
        } catch {
            log("sharing: \(error)")
        }
    }

    /// Marks a notice as queued in this run (the mail queue retries it until stored); false if
    /// it already was. The store keeps it due until then: a stop before it is stored leaves it
    /// for the next run to queue again.
    func queueNotice(_ grantID: Bytes16, grant: Bool) -> Bool {
        state.withLock { $0.publishing.noticesQueued.insert(Notice(grantID: grantID, grant: grant)).inserted }
    }

    /// The relay stored the notice: told, for good.
    func noticeStored(_ grantID: Bytes16, grant: Bool) {
        state.withLock { _ = $0.publishing.noticesQueued.remove(Notice(grantID: grantID, grant: grant)) }
        do {
            try sharing.markSent(grantID, grant: grant ? true : nil, revoke: grant ? nil : true)
            log("sharing: \(grant ? "grant" : "revoke") \(hex(grantID.bytes)) stored for its grantee")
        } catch {
            log("sharing: \(error)")
        }
    }

    /// Grants as the store holds them now, so that a revocation by the CLI refuses the very next
    /// request rather than the first one after the reload tick.
    func refreshGrants() {
        guard let grants = try? store.grants() else { return }
        var byGrantee: [PublicKey: [GrantRecord]] = [:]
        for g in grants { byGrantee[g.grantee.signingKey, default: []].append(g) }
        state.withLock { $0.membership.grants = byGrantee }
    }

    /// The same for one grantee, before each of its requests: its rows only.
    func refreshGrants(of grantee: PublicKey) {
        guard let grants = try? store.grants(grantee: grantee) else { return }
        state.withLock { $0.membership.grants[grantee] = grants.isEmpty ? nil : grants }
    }
}
