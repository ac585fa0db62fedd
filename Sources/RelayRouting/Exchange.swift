import Courier
import Inference
import InferenceWire
import Routing
import Sealing
import Signing
import Wire

/// One call of `HomebaseProvider.stream`: at most two attempts (one repair), then the answer
/// or the failure.
struct Exchange: Sendable {
    typealias Sink = AsyncThrowingStream<ChatEvent, Error>.Continuation

    let provider: HomebaseProvider
    let sink: Sink

    /// Streams the answer into the sink; returns the failure, or nil when answered.
    func answer(_ request: ChatRequest) async -> BrainFailure? {
        // Whether tools may go to a Homebase is the router's decision alone (#23).
        let key = provider.hostKey
        guard let host = provider.directory.record(for: key) else {
            return fail(.notSent("no device record for Homebase \(shortKey(key))"))
        }
        var plan = ConversationPlan(messages: request.messages.map(WireBridge.wire))
        plan.assume(held: provider.ledger.heldPrefix(host: key, conversation: plan.conversationID))
        var repaired = false
        while true {
            if Task.isCancelled { return .cancelled }
            switch await attempt(request, plan, to: host) {
            case .answered:
                provider.ledger.record(host: key, conversation: plan.conversationID, prefix: plan.fullHash)
                return nil
            case .notDelivered(let error):
                return fail(error)
            case .failed(let error, let requestID, let producedText):
                provider.ledger.forget(host: key, conversation: plan.conversationID)
                if !repaired, !producedText, case .host(let code, _) = error, let repair = repair(for: code) {
                    repaired = true
                    if let failure = await run(repair, &plan, host: host) { return fail(failure) }
                    continue
                }
                sendCancel(requestID, to: host)
                return fail(error)
            }
        }
    }

}

// The repairs, the cancel that frees the host's slot, and the log lines.
extension Exchange {
    fileprivate enum Repair { case reconcile, inline }

    /// The one repair the host's code allows on this arm (SPEC.md: own → `diverged`,
    /// joined → `cache_miss`); any other pairing is an ordinary failure.
    fileprivate func repair(for code: AppMessage.ErrorCode) -> Repair? {
        switch (provider.kind, code) {
        case (.own, .diverged): .reconcile
        case (.joined, .cacheMiss): .inline
        default: nil
        }
    }

    /// Runs a repair; returns the failure if it could not be made.
    fileprivate func run(_ repair: Repair, _ plan: inout ConversationPlan, host: DeviceRecord) async -> BrainFailure? {
        switch repair {
        case .inline:
            note("cache_miss: retrying once with the whole conversation inline")
            plan.inlineAll()
        case .reconcile:
            // An inline request that diverged has nothing to reconcile: the retry is the repair.
            guard let delta = plan.reconcilingDelta() else {
                note("diverged on an inline request: retrying once")
                return nil
            }
            note("diverged: sending the sync-delta of \(delta.appended.count) message(s) and retrying once")
            // Live, on the same link as the retry that follows: the relay forwards a
            // connection's frames in order, so the host applies it before the retry arrives.
            let outcome = await provider.courier.send(.syncDelta(delta), to: host)
            guard outcome == .sent else { return .notSent("the sync-delta repair was not delivered: \(outcome)") }
        }
        return nil
    }

    /// Sent, never awaited: after a rung fired the link may be dead, and its outcome (up to the
    /// link's live timeout) must not hold up the fallback. An unstructured task, so the
    /// consumer's cancellation that got us here does not stop it either.
    fileprivate func sendCancel(_ requestID: Bytes16, to host: DeviceRecord) {
        let courier = provider.courier, log = provider.log, label = "homebase \(shortKey(provider.hostKey)) (\(provider.brain.rawValue))"
        Task {
            let outcome = await courier.send(.cancel(requestID: requestID), to: host)
            log?("\(label): cancel outcome: \(outcome)")
        }
    }

    fileprivate func fail(_ error: BrainFailure) -> BrainFailure {
        note("failed: \(error)")
        return error
    }

    /// An older Homebase answered without options it does not know (SPEC: `ignored-options`).
    func noteIgnored(_ keys: [UInt16]) {
        if keys.contains(0x000A) {
            note("the Homebase's engine takes no context length per request (num_ctx): it answers with the window it was started with")
        }
        let unknown = keys.filter { $0 != 0x000A }
        guard !unknown.isEmpty else { return }
        let names = unknown.map { "0x" + String($0, radix: 16) }.joined(separator: ", ")
        note("the Homebase ignored option(s) it does not know: \(names) (it is older than this guest: upgrade homebase)")
    }

    func note(_ line: String) {
        provider.log?("homebase \(shortKey(provider.hostKey)) (\(provider.brain.rawValue)): \(line)")
    }
}
