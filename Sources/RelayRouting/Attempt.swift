import Courier
import Inference
import PeerLink
import Sealing
import Signing
import Wire

/// How one request to the host ended.
enum AttemptResult: Equatable {
    case answered
    /// The request surely did not arrive: nothing to cancel, no repair.
    case notDelivered(InferenceError)
    /// It may have arrived: `cancel` is owed unless a repair follows. `hostCode` is the host's
    /// error code when it answered `error`; `producedText` says the caller already saw text.
    case failed(InferenceError, requestID: Bytes16, hostCode: AppMessage.ErrorCode?, producedText: Bool)
}

extension Exchange {
    /// Sends one request and reads its replies under the watchdog, yielding text as it comes.
    func attempt(_ request: ChatRequest, _ plan: ConversationPlan, to host: DeviceRecord) async -> AttemptResult {
        let requestID = Bytes16(unchecked: randomBytes(count: Bytes16.count))
        let wire = AppMessage.Request(
            requestID: requestID, model: request.model, conversationID: plan.conversationID,
            prefixHash: plan.prefixHash, messages: plan.newMessages, inline: plan.inline,
            maxTokens: WireOptions.maxTokens(request.maxTokens),
            temperaturePerMille: WireOptions.temperature(request.temperature),
            continuation: request.continuation)
        let watchdog = Watchdog(limits: provider.limits, start: .now)
        let (outcome, replies) = await provider.courier.sendRequest(wire, to: host)
        switch outcome {
        case .sent, .failed(.timeout): break  // arrived, or may have: read on
        case .notHere: return .notDelivered(.unreachable("the Homebase is not connected to the relay"))
        case .dropped: return .notDelivered(.unreachable("the relay dropped the request (the Homebase reads too slowly)"))
        case .failed(let e): return .notDelivered(.unreachable("the request was not sent: \(e)"))
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
            if !step.text.isEmpty { sink.yield(.text(step.text)) }
            switch step.end {
            case nil:
                continue
            case .done(let done)?:
                let usage = Usage(promptTokens: Int(done.promptTokens), completionTokens: Int(done.completionTokens))
                sink.yield(.done(finishReason: done.finishReason, usage: usage))
                return .answered
            case .hostError(let e)?:
                return .failed(e.asInferenceError, requestID: requestID, hostCode: e.code, producedText: reader.producedText)
            case .interrupted?:
                return .failed(.interrupted, requestID: requestID, hostCode: nil, producedText: reader.producedText)
            case .hostGone(let reason)?:
                return .failed(.unreachable(HostGone.words(reason)), requestID: requestID, hostCode: nil,
                               producedText: reader.producedText)
            }
        }
        let error: InferenceError
        if let rung = watchdog.fired {
            error = .timeout(rung.rawValue)
        } else if Task.isCancelled {
            error = .cancelled
        } else {
            error = .interrupted  // ended without done: link lost, Courier stopped
        }
        return .failed(error, requestID: requestID, hostCode: nil, producedText: reader.producedText)
    }
}

/// `ChatRequest` options in their wire form.
enum WireOptions {
    /// nil (no limit chosen) is sent as 0: the host then sets no limit of its own.
    static func maxTokens(_ n: Int?) -> UInt32 { n.map { UInt32(clamping: max(0, $0)) } ?? 0 }

    /// Per mille (0.7 → 700), clamped to what a u16 holds; nil or not finite is 700 (0.7).
    static func temperature(_ t: Double?) -> UInt16 {
        guard let t, t.isFinite else { return defaultTemperature }
        return UInt16(clamping: Int((min(max(t, 0), 65.535) * 1000).rounded()))
    }

    static let defaultTemperature: UInt16 = 700
}
