import Courier
import Inference
import Signing
import Wire

// One sealed request, answered in three stages, each in the file named for it:
// admit (HomebaseAgent+Admit: who asks, the grant's rate and budget, a gate slot, a runtime),
// stream (HomebaseAgent+Stream: `accept`, then the engine's answer pumped onto the link),
// finish (HomebaseAgent+Finish: the answer remembered and counted, `done` or `error`).
extension HomebaseAgent {
    /// Answers one request: admit → stream → finish. The record (usage, the audit line, the
    /// runtime's load, the recent list) is taken however the request ends (#21, #25), after the
    /// gate slot is released.
    func serve(_ d: Delivery, _ r: AppMessage.Request, trace: TimingTrace? = nil) async {
        let writer: ReplyWriter
        do { writer = try courier.replyWriter(for: d) } catch {
            log("request from \(d.sender.signingKey.hex.prefix(16))…: \(error)")
            return
        }
        let sender = d.sender.signingKey
        if state.withLock({ $0.membership.siblings[sender] == nil }) { refreshGrants(of: sender) }  // a revoke holds at once
        let started = nowMs()
        var rec = RequestRecord(sender: sender, isSibling: state.withLock { $0.membership.siblings[sender] != nil }, model: r.model)
        defer { account(rec); noteRecent(sender, model: r.model, started: started, outcome: rec.outcome) }
        guard let admitted = await admit(r, from: sender, writer: writer, trace: trace, &rec) else { return }
        defer { gate.release(admitted.lane) }
        let streamed = await stream(admitted, writer: writer, trace: trace)
        await finish(r, admitted, streamed, writer: writer, &rec)
    }

    /// Refuses the request with `e` (an `error` reply), counted under its code's name.
    func refuse(_ writer: ReplyWriter, _ e: AppMessage.InferenceError, _ rec: inout RequestRecord) async {
        rec.outcome = e.code.name
        _ = await writer.fail(error: e)
        count(e.code.name)
    }

    /// Adds a request to the status page's ring: who by name (a sibling) or grant, never its text.
    func noteRecent(_ sender: PublicKey, model: String, started: Int64, outcome: String) {
        let now = nowMs()
        state.withLock { s in
            let who: String
            if let d = s.membership.siblings[sender] {
                who = d.name
            } else if let g = (s.membership.grants[sender] ?? []).first {
                who = "grant \(hex(g.grantID.bytes).prefix(12))… (\(g.grantee.name))"
            } else {
                who = "\(sender.hex.prefix(16))…"
            }
            s.serving.recent.add(RecentRequest(startedMs: started, durationMs: max(0, now - started), outcome: outcome,
                                               who: who, model: model))
        }
    }

    /// Holds the conversation (and, once answered, the answer) for the next request to extend.
    /// With the answer, a sibling's replica is on disk when this returns (`done` follows it);
    /// without, the write to do is returned (nil for a grantee: their cache stays in memory).
    @discardableResult
    func remember(_ plan: ServePlan, answer: String?, toolCalls: [ToolCall] = []) -> ReplicaWriter.Pending? {
        var messages = plan.conversation
        if let answer {
            let text = (plan.chat.continuation ?? "") + answer
            messages.append(.init(role: .assistant, parts: text.isEmpty ? [] : [.text(text)],
                                  toolCalls: toolCalls.map { .init(id: $0.id, name: $0.name, argumentsJSON: $0.argumentsJSON) }))
        }
        let pending = state.withLock { s -> ReplicaWriter.Pending? in
            guard plan.isSibling else { s.memory.cache.hold(plan.memoryKey, messages); return nil }
            s.memory.replica.hold(plan.memoryKey, messages)
            return replicas.issue(plan.memoryKey, messages)
        }
        guard let pending else { return nil }
        if answer == nil { return pending }
        replicas.write(pending)
        return nil
    }
}
