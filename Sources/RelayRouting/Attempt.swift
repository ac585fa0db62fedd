import Courier
import Inference
import InferenceWire
import PeerLink
import Routing
import Sealing
import Signing
import Wire

/// How one request to the host ended.
enum AttemptResult: Equatable {
    case answered
    /// The request surely did not arrive: nothing to cancel, no repair.
    case notDelivered(BrainFailure)
    /// It may have arrived: `cancel` is owed unless a repair follows (a repair only for the
    /// host's `.host` code); `producedText` says the caller already saw text.
    case failed(BrainFailure, requestID: Bytes16, producedText: Bool)
}

extension Exchange {
    /// Sends one request and reads its replies under the watchdog, yielding events as they come.
    func attempt(_ request: ChatRequest, _ plan: ConversationPlan, to host: DeviceRecord) async -> AttemptResult {
        let requestID = Bytes16(unchecked: randomBytes(count: Bytes16.count))
        let wire: AppMessage.Request
        do {
            wire = try WireBridge.request(request, requestID: requestID, conversationID: plan.conversationID,
                                          prefixHash: plan.prefixHash, messages: plan.newMessages, inline: plan.inline)
        } catch .tooLarge(let why) {
            return .notDelivered(.tooLarge(why))
        } catch {
            return .notDelivered(.notSealed(error.description))
        }
        let watchdog = Watchdog(limits: provider.limits, start: .now)
        let outcome: LiveOutcome, replies: ReplyStream
        do {
            (outcome, replies) = try await provider.courier.sendAwaitingReplies(.request(wire), requestID: requestID, to: host)
        } catch {
            return .notDelivered(.notSealed(error.description))
        }
        switch outcome {
        case .sent, .failed(.timeout): break  // arrived, or may have: read on
        case .notHere: return .notDelivered(.notHere)
        case .dropped: return .notDelivered(.notSent("the relay dropped the request (the Homebase reads too slowly)"))
        case .failed(let e): return .notDelivered(.notSent("the request was not sent: \(e)"))
        }
        // A firing rung ends the reply stream; the loop below then sees its end.
        let guardTask = Task { await watchdog.watch { replies.cancel() } }
        let nudge = Nudge(), courier = provider.courier, every = provider.limits.nudge
        let nudgeTask = Task { await nudge.run(courier: courier, host: host.signingKey, every: every) }
        defer { guardTask.cancel(); nudgeTask.cancel() }
        var reader = ReplyReader()
        for await reply in replies {
            nudge.heard()
            let step = reader.read(reply)
            if let rung = step.arm { watchdog.arm(rung) }
            if !step.ignoredOptions.isEmpty { noteIgnored(step.ignoredOptions) }
            for event in step.events { sink.yield(event) }
            switch step.end {
            case nil:
                continue
            case .done(let done)?:
                sink.yield(WireBridge.done(done))
                return .answered
            case .hostError(let e)?:
                return .failed(.host(e.code, message: e.message), requestID: requestID, producedText: reader.producedText)
            case .interrupted?:
                return .failed(.interrupted, requestID: requestID, producedText: reader.producedText)
            case .hostGone(let reason)?:
                return .failed(.hostGone(reason), requestID: requestID, producedText: reader.producedText)
            }
        }
        let error: BrainFailure
        if let rung = watchdog.fired {
            // Also what a Homebase older than request-v2 causes: it skips the message unread.
            if rung == .accept { note("no accept: the Homebase is down, overloaded, or older than this guest (one before request-v2 skips it unread): upgrade homebase") }
            error = .watchdog(rung)
        } else if Task.isCancelled {
            error = .cancelled
        } else {
            error = .interrupted  // ended without done: link lost, Courier stopped
        }
        return .failed(error, requestID: requestID, producedText: reader.producedText)
    }
}
