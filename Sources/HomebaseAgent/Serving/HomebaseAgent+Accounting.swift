import Basics
import Inference
import Signing
import Wire

/// What one request came to, for usage, the audit log and the runtime's load (#21).
struct RequestRecord: Sendable {
    var startedNs = monotonicNanos()
    var arrivedMs = nowMs()
    var sender: PublicKey
    var isSibling: Bool
    var model: String
    var outcome = "unfinished"
    var usage: Usage?
    /// The runtime picked (released when the request ends).
    var runtime: String?
}

extension HomebaseAgent {
    /// A grantee over every budget of its grants in force for this model: the `busy` reason.
    /// Usage is counted per grantee device (its grants share it).
    func budgetRefusal(_ grantee: PublicKey, model: String) -> String? {
        let now = nowMs()
        let active = state.withLock { s in (s.membership.grants[grantee] ?? []).filter { $0.isActive(nowMs: now) && $0.models.contains(model) } }
        return BudgetCheck.refusal(active.map(\.budget), used: { budget in
            // A store that cannot answer counts nothing used: the budget must not lock a friend out.
            (try? store.tokensUsed(by: grantee, since: budget.firstDay(nowMs: now))) ?? 0
        }, nowMs: now)
    }

    /// The least loaded runtime serving the plan's model (nil: every one failed or is full).
    func takeRuntime(_ candidates: [String]) -> String? {
        let limits = configuration.runtimeLimits
        return state.withLock { $0.serving.load.take(candidates, limit: limits.limit) }
    }

    /// The refusal when `takeRuntime` found none: every runtime of the model is at its limit.
    func noRuntimeRefusal(_ candidates: [String]) -> (AppMessage.ErrorCode, String) {
        (.busy, "every engine serving this model is at its concurrency limit (runtime-limit)")
    }

    func runtimeFailed(_ url: String) { state.withLock { $0.serving.load.failed(url, nowMs: nowMs()) } }

    /// After a verification: runtimes that passed since their failure are used again.
    func runtimesVerified() {
        state.withLock { s in
            for r in s.offer.runtimes where r.available { s.serving.load.verified(r.url, checkedMs: r.checkedMs) }
        }
    }

    /// Adds an answered request's usage row (only with the engine's own figures).
    func recordUsage(_ r: RequestRecord) {
        if let u = r.usage {
            do {
                try store.recordUsage(requester: r.sender, own: r.isSibling, model: r.model, day: UsageDay.key(r.arrivedMs),
                                      tokensIn: Int64(u.promptTokens), tokensOut: Int64(u.completionTokens))
            } catch {
                log("usage not recorded: \(error)")
            }
        }
    }

    /// Ends a request's accounting: the runtime's slot, the audit line.
    func account(_ r: RequestRecord) {
        if let url = r.runtime { state.withLock { $0.serving.load.release(url) } }
        guard r.isSibling ? configuration.audit.own : configuration.audit.grants else { return }
        let requester: String
        if r.isSibling {
            requester = "device:" + r.sender.hex
        } else {
            let now = nowMs()
            let grant = state.withLock { s in
                (s.membership.grants[r.sender] ?? []).first { $0.isActive(nowMs: now) && $0.models.contains(r.model) }
                    ?? s.membership.grants[r.sender]?.first
            }
            requester = grant.map { "grant:" + hex($0.grantID.bytes) } ?? "device:" + r.sender.hex
        }
        audit.write(.init(time: r.arrivedMs, requester: requester, device: r.sender.hex, model: r.model,
                          tokensIn: Int64(r.usage?.promptTokens ?? 0), tokensOut: Int64(r.usage?.completionTokens ?? 0),
                          outcome: r.outcome, durationMs: Int64((monotonicNanos() &- r.startedNs) / 1_000_000),
                          runtime: r.runtime))
    }

    /// In flight per runtime now, and served since start (status).
    var runtimeLoad: (inFlight: [String: Int], served: [String: Int], failed: [String]) {
        state.withLock { s in (s.serving.load.inFlight, s.serving.load.served, Array(s.serving.load.failedAtMs.keys).sorted()) }
    }
}
