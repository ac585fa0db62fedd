import Courier
import PeerLink
import Signing
import Wire

// Inbound messages: requests are served on their own task (one per request, registered so a
// `cancel` finds it); everything else is handled inline and its mail acked after.
extension HomebaseAgent {
    func handle(_ d: Delivery) {
        // A device we do not know yet may only ask to join (SPEC: act on introductions only there).
        if d.introduced {
            switch d.message {
            case .join(let j): handleJoin(d, j)
            case .pairRequest(let r): pairRequest(d, r); d.ack()
            default: d.ack()
            }
            return
        }
        let sender = d.sender.signingKey
        switch d.message {
        case .request(let r):
            let trace = configuration.traceTimings ? TimingTrace(linkRead: d.receivedAt) : nil
            serveOnce(ActiveRequest(sender: sender, requestID: r.requestID)) { agent in
                await agent.serve(d, r, trace: trace)
                if let trace { agent.log(trace.line) }
            }
        case .embedRequest(let r):  // EmbeddingService.swift
            serveOnce(ActiveRequest(sender: sender, requestID: r.requestID)) { await $0.serveEmbedding(d, r) }
        case .manageRequest(let r):  // Manage/HomebaseAgent+Manage.swift
            serveOnce(ActiveRequest(sender: sender, requestID: r.requestID)) { await $0.serveManage(d, r) }
        case .cancel(let id):
            let task = state.withLock { $0.serving.active.removeValue(forKey: ActiveRequest(sender: sender, requestID: id)) }
            task?.cancel()
            if task != nil { count("cancelled") }
        case .pairCodeRequest(let r): pairCodeRequest(d, r)
        case .syncDelta(let delta):
            let key = delta.conversationID.bytes
            warmReplica(key, sender: sender)
            let applied = state.withLock { s -> ReplicaWriter.Pending? in
                guard s.membership.siblings[sender] != nil else { return nil }  // grantees keep no replica here
                guard s.memory.replica.apply(delta, key: key) else {
                    s.serving.outcomes["sync-delta-refused", default: 0] += 1
                    return nil
                }
                return s.memory.replica.messages(key).map { replicas.issue(key, $0) }
            }
            if let applied { replicas.write(applied) }
        case .roster(let r):
            guard rosterMail(d, r) else { return }  // the store failed: the relay keeps it
        case .rosterAsk(let held): rosterAsked(d, holding: held)
        default:
            break  // adverts and sharing messages are not for a host (yet): skipped
        }
        d.ack()
    }

    /// Runs `work` as the task of request `key`, registered so a `cancel` finds it, and gone
    /// from `active` when done. A duplicate (`key` already in flight) is dropped: the first answers.
    private func serveOnce(_ key: ActiveRequest, _ work: @escaping @Sendable (HomebaseAgent) async -> Void) {
        state.withLock { s in
            guard s.serving.active[key] == nil else { return }
            s.serving.active[key] = Task { [weak self] in
                guard let self else { return }
                await work(self)
                _ = self.state.withLock { $0.serving.active.removeValue(forKey: key) }
            }
        }
    }

    /// A sibling's conversation not in memory (after a restart, or forgotten) is read from disk.
    func warmReplica(_ key: [UInt8], sender: PublicKey) {
        guard state.withLock({ $0.membership.siblings[sender] != nil && $0.memory.replica.messages(key) == nil }),
              let saved = try? store.loadReplica(key) else { return }
        state.withLock { s in if s.memory.replica.messages(key) == nil { s.memory.replica.hold(key, saved) } }
    }

    /// The highest rate of the grantee's grants in force (0 among them: unlimited).
    func admitRate(_ grantee: PublicKey, nowMs: Int64) -> Bool {
        state.withLock { s in
            let active = (s.membership.grants[grantee] ?? []).filter { $0.isActive(nowMs: nowMs) }
            let rate = active.contains { $0.ratePerMinute == 0 } ? 0 : active.map(\.ratePerMinute).max() ?? 0
            return s.serving.rates[grantee, default: RateWindow()].admit(nowMs: nowMs, perMinute: rate)
        }
    }

    func count(_ outcome: String) { state.withLock { $0.serving.outcomes[outcome, default: 0] += 1 } }
}
