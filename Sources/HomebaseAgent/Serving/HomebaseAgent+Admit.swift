import Courier
import Signing
import Wire

/// What `admit` hands on to `stream` and `finish`: the plan, the gate lane it holds a slot in
/// (`serve` releases it) and the runtime it took (released with the request's record).
struct AdmittedRequest: Sendable {
    var plan: ServePlan
    var lane: ConcurrencyGate.Lane
    var runtimeURL: String
}

// The first stage of `serve` (HomebaseAgent+Serve): a request is refused here or leaves holding
// a gate slot and a runtime.
extension HomebaseAgent {
    /// Decides the request (`Admission.decide` over one snapshot), then the grant's rate and
    /// token budget, a concurrency slot (own devices before grantees) and the least loaded
    /// runtime. Nil when it was refused (the refusal is sent and recorded) or cancelled; then
    /// no slot is held.
    func admit(_ r: AppMessage.Request, from sender: PublicKey, writer: ReplyWriter, trace: TimingTrace?,
               _ rec: inout RequestRecord) async -> AdmittedRequest? {
        if !r.inline { warmReplica(r.conversationID.bytes, sender: sender) }
        let decision = state.withLock { s in
            Admission.decide(r, from: sender, view: AdmissionView(siblings: Set(s.membership.siblings.keys), grants: s.membership.grants,
                                                                   catalog: s.offer.catalog, nowMs: nowMs()),
                             replica: &s.memory.replica, cache: &s.memory.cache)
        }
        let plan: ServePlan
        switch decision {
        case .refuse(let e):
            await refuse(writer, e, &rec)
            return nil
        case .serve(let p): plan = p
        }
        guard plan.isSibling || admitRate(sender, nowMs: nowMs()) else {
            await refuse(writer, .init(requestID: r.requestID, code: .busy, message: "over the grant's rate per minute"), &rec)
            return nil
        }
        // A grantee over its token budget is `busy` with the reason: its device answers on its own (#21).
        if !plan.isSibling, let why = budgetRefusal(sender, model: r.model) {
            await refuse(writer, .init(requestID: r.requestID, code: .busy, message: why), &rec)
            return nil
        }
        // The account's own devices before grantees (`SlotBook`): a grantee never takes the last slot.
        let lane: ConcurrencyGate.Lane = plan.isSibling ? .own : .grantee(sender)
        switch await gate.acquire(lane, maxWait: configuration.queueWait) {
        case .admitted: break
        case .full:
            if Task.isCancelled { return nil }
            await refuse(writer, .init(requestID: r.requestID, code: .busy, message: "every engine slot is taken"), &rec)
            return nil
        case .overCap:
            let message = "this device already has \(gate.perGrantee) requests here (the host's max-per-grantee)"
            await refuse(writer, .init(requestID: r.requestID, code: .busy, message: message), &rec)
            return nil
        }
        // From here the slot is held: released before every return without it.
        guard !Task.isCancelled else {
            gate.release(lane)
            return nil
        }
        // Several runtimes may serve the model: the least loaded one that has not failed (#21).
        let candidates = plan.runtimeURLs.isEmpty ? [plan.runtimeURL] : plan.runtimeURLs
        guard let runtimeURL = takeRuntime(candidates) else {
            let (code, why) = noRuntimeRefusal(candidates)
            await refuse(writer, .init(requestID: r.requestID, code: code, message: why), &rec)
            gate.release(lane)
            return nil
        }
        rec.runtime = runtimeURL
        trace?.mark(.admitted)
        return AdmittedRequest(plan: plan, lane: lane, runtimeURL: runtimeURL)
    }
}
