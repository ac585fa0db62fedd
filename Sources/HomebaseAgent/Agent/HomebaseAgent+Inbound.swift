import Courier
import Inference
import InferenceWire
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
            let key = ActiveRequest(sender: sender, requestID: r.requestID)
            let trace = configuration.traceTimings ? TimingTrace(linkRead: d.receivedAt) : nil
            state.withLock { s in
                guard s.serving.active[key] == nil else { return }  // a duplicate: the first one answers
                s.serving.active[key] = Task { [weak self] in
                    await self?.serve(d, r, trace: trace)
                    if let trace { self?.log(trace.line) }
                    _ = self?.state.withLock { $0.serving.active.removeValue(forKey: key) }
                }
            }
        case .embedRequest(let r):  // EmbeddingService.swift; a duplicate id is answered once
            let key = ActiveRequest(sender: sender, requestID: r.requestID)
            state.withLock { s in
                guard s.serving.active[key] == nil else { return }
                s.serving.active[key] = Task { [weak self] in
                    await self?.serveEmbedding(d, r)
                    _ = self?.state.withLock { $0.serving.active.removeValue(forKey: key) }
                }
            }
        case .manageRequest(let r):  // Manage/HomebaseAgent+Manage.swift; a duplicate id is answered once
            let key = ActiveRequest(sender: sender, requestID: r.requestID)
            state.withLock { s in
                guard s.serving.active[key] == nil else { return }
                s.serving.active[key] = Task { [weak self] in
                    await self?.serveManage(d, r)
                    _ = self?.state.withLock { $0.serving.active.removeValue(forKey: key) }
                }
            }
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

    /// Answers one request: admission, the concurrency gate, `accept`, the streamed answer,
    /// `done` or `error`.
    func serve(_ d: Delivery, _ r: AppMessage.Request, trace: TimingTrace? = nil) async {
        let writer: ReplyWriter
        do { writer = try courier.replyWriter(for: d) } catch {
            log("request from \(d.sender.signingKey.hex.prefix(16))…: \(error)")
            return
        }
        let sender = d.sender.signingKey
        if state.withLock({ $0.membership.siblings[sender] == nil }) { refreshGrants(of: sender) }  // a revoke holds at once
        // Usage, the audit line, the runtime's load and the recent list, however the request ends (#21, #25).
        let started = nowMs()
        var rec = RequestRecord(sender: sender, isSibling: state.withLock { $0.membership.siblings[sender] != nil }, model: r.model)
        defer { account(rec); noteRecent(sender, model: r.model, started: started, outcome: rec.outcome) }
        if !r.inline { warmReplica(r.conversationID.bytes, sender: sender) }
        let decision = state.withLock { s in
            Admission.decide(r, from: sender, view: AdmissionView(siblings: Set(s.membership.siblings.keys), grants: s.membership.grants,
                                                                   catalog: s.offer.catalog, nowMs: nowMs()),
                             replica: &s.memory.replica, cache: &s.memory.cache)
        }
        let plan: ServePlan
        switch decision {
        case .refuse(let e): return await refuse(writer, e, &rec)
        case .serve(let p): plan = p
        }
        guard plan.isSibling || admitRate(sender, nowMs: nowMs()) else {
            return await refuse(writer, .init(requestID: r.requestID, code: .busy, message: "over the grant's rate per minute"), &rec)
        }
        // A grantee over its token budget is `busy` with the reason: its device answers on its own (#21).
        if !plan.isSibling, let why = budgetRefusal(sender, model: r.model) {
            return await refuse(writer, .init(requestID: r.requestID, code: .busy, message: why), &rec)
        }
        // The account's own devices before grantees (`SlotBook`): a grantee never takes the last slot.
        let lane: ConcurrencyGate.Lane = plan.isSibling ? .own : .grantee(sender)
        switch await gate.acquire(lane, maxWait: configuration.queueWait) {
        case .admitted: break
        case .full:
            if Task.isCancelled { return }
            return await refuse(writer, .init(requestID: r.requestID, code: .busy, message: "every engine slot is taken"), &rec)
        case .overCap:
            let message = "this device already has \(gate.perGrantee) requests here (the host's max-per-grantee)"
            return await refuse(writer, .init(requestID: r.requestID, code: .busy, message: message), &rec)
        }
        defer { gate.release(lane) }
        guard !Task.isCancelled else { return }
        // Several runtimes may serve the model: the least loaded one that has not failed (#21).
        let candidates = plan.runtimeURLs.isEmpty ? [plan.runtimeURL] : plan.runtimeURLs
        guard let runtimeURL = takeRuntime(candidates) else {
            let (code, why) = noRuntimeRefusal(candidates)
            return await refuse(writer, .init(requestID: r.requestID, code: code, message: why), &rec)
        }
        rec.runtime = runtimeURL
        trace?.mark(.admitted)
        // The conversation is held in memory now (the next request may extend it); its disk copy
        // is written off the request path, after the engine is called and `accept` is out. The
        // copy with the answer is written before `done` (below), and no earlier write lands over it.
        let early = remember(plan, answer: nil).map { p in
            BackgroundWrite { [replicas] in
                replicas.write(p)
                trace?.mark(.replicaWritten)
            }
        }
        let client = OpenAIChatClient(.init(baseURL: runtimeURL, timeouts: configuration.engineTimeouts,
                                            brain: .localEndpoint))
        // The engine starts on the prompt while `accept` travels; chunks follow it on the link
        // without waiting for its confirmation (or each other's): a bounce ends the request.
        let events = client.stream(plan.chat)
        trace?.mark(.engineCalled)
        let typed = plan.typed
        let preamble: [ReplyEvent] = typed && !plan.ignoredOptions.isEmpty ? [.ignoredOptions(plan.ignoredOptions)] : []
        if configuration.replyShaping == .cadence { writer.pad(chunksTo: configuration.batchPolicy.shaping.frameBucket) }
        let result = await StreamPump.run(events, policy: configuration.batchPolicy,
                                          probe: configuration.chunkProbe, trace: trace, typed: typed, preamble: preamble,
                                          opening: { heard in
            defer { trace?.mark(.acceptPosted); early?.start() }
            return writer.postAccept(then: heard)
        }) { events, heard in
            // The pump's empty piece is its keep-alive (the engine works, nothing to say yet).
            if events.isEmpty {
                writer.postKeepAlive(then: heard)
            } else if !typed {
                writer.post(text: events.reduce(into: "") { if case .text(let t) = $1 { $0 += t } }, then: heard)
            } else if let data = try? ReplyEvent.encode(events) {
                writer.post(events: data, then: heard)
            } else {
                heard(.failed(.stopped))  // unencodable (a name over 64 KiB): the stream cannot go on
            }
        }
        switch result {
        case .done(let reason, let usage, let text, let calls):
            remember(plan, answer: text, toolCalls: calls)
            // Counted before `done` leaves: the requester's next request meets the new total.
            rec.usage = usage
            recordUsage(rec)
            _ = await writer.finish(done: WireBridge.done(requestID: r.requestID, finishReason: reason, usage: usage))
            count("done")
            rec.outcome = "done"
        case .engineFailed(let e, _):
            // The message names the failure kind, never the prompt; the engine's own text may
            // echo input, so only its class goes out.
            await refuse(writer, .init(requestID: r.requestID, code: Admission.code(for: e), message: Self.summary(e)), &rec)
            // An engine that fails (unreachable, 5xx, a timeout, a cut stream) is skipped and verified
            // again now, so adverts stop offering it.
            if Self.failsRuntime(e) {
                runtimeFailed(runtimeURL)
                Task { [weak self] in await self?.reverify() }
            }
        case .requesterGone:
            count("requester-gone")
            rec.outcome = "requester-gone"
        case .cancelled:
            count("cancelled-mid-stream")
            rec.outcome = "cancelled"
        }
        // Not lost when the pump ended before `accept`; a no-op when the answer's write overtook it.
        await early?.finish()
    }

    private func refuse(_ writer: ReplyWriter, _ e: AppMessage.InferenceError, _ rec: inout RequestRecord) async {
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
            s.serving.recent.add(RecentRequest(startedMs: started, durationMs: max(0, now - started), outcome: outcome, who: who,
                                       model: model))
        }
    }

    /// Holds the conversation (and, once answered, the answer) for the next request to extend.
    /// With the answer, a sibling's replica is on disk when this returns (`done` follows it);
    /// without, the write to do is returned (nil for a grantee: their cache stays in memory).
    @discardableResult
    private func remember(_ plan: ServePlan, answer: String?, toolCalls: [ToolCall] = []) -> ReplicaWriter.Pending? {
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

    /// A sibling's conversation not in memory (after a restart, or forgotten) is read from disk.
    private func warmReplica(_ key: [UInt8], sender: PublicKey) {
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

    /// Whether an engine failure says the runtime is at fault (vs. the request: a 4xx, a model it
    /// does not serve, an option it cannot do, a cancel).
    static func failsRuntime(_ e: InferenceError) -> Bool {
        switch e {
        case .unreachable, .timeout, .interrupted: true
        case .http(let status, _): status >= 500
        case .inBand, .modelUnavailable, .malformed, .unsupported, .cancelled: false
        }
    }

    static func summary(_ e: InferenceError) -> String {
        switch e {
        case .unreachable: "the engine is not reachable"
        case .http(let status, _): "the engine answered HTTP \(status)"
        case .inBand: "the engine reported an error in its stream"
        case .interrupted: "the engine's stream ended early"
        case .timeout(let why): why  // our own limit's words ("the engine sent nothing for 20 s")
        case .modelUnavailable: "the engine does not serve this model"
        case .malformed: "the engine's answer did not parse"
        case .unsupported(let what): what  // our own words, naming an option, never the prompt
        case .cancelled: "the engine request failed"
        }
    }
}
