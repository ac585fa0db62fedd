import Courier
import Inference
import InferenceWire
import Wire

// The last stage of `serve` (HomebaseAgent+Serve): the request's end told and recorded.
extension HomebaseAgent {
    /// The answer remembered, its usage counted and `done` sent; or the engine's failure as an
    /// `error` (the runtime skipped when at fault); or the requester gone or the task cancelled,
    /// counted. The early disk write is seen through in every case.
    func finish(_ r: AppMessage.Request, _ a: AdmittedRequest, _ s: StreamedRequest, writer: ReplyWriter,
                _ rec: inout RequestRecord) async {
        switch s.result {
        case .done(let reason, let usage, let text, let calls, let tail, let pads):
            rec.usage = usage
            // The answer held (a sibling's replica on disk) and its usage counted before `done`
            // leaves, as the requester's next request must meet them; but beside the end's
            // hand-off and `done`'s seal, not before them (`ReplyWriter.finish`).
            let record = rec
            let durable = Task {
                remember(a.plan, answer: text, toolCalls: calls)
                recordUsage(record)
            }
            let done = WireBridge.done(requestID: r.requestID, finishReason: reason, usage: usage)
            let before: @Sendable () async -> Void = { await durable.value }
            if !a.plan.typed {
                _ = await writer.finish(text: tail.reduce(into: "") { if case .text(let t) = $1 { $0 += t } }, pads: pads,
                                        done: done, before: before)
            } else if let data = try? ReplyEvent.encode(tail) {
                _ = await writer.finish(events: data, pads: pads, done: done, before: before)
            } else {
                // Unencodable (a name over 64 KiB): as the pump does mid-stream, the stream cannot go on.
                await durable.value
                count("requester-gone")
                rec.outcome = "requester-gone"
                break
            }
            count("done")
            rec.outcome = "done"
        case .engineFailed(let e, _):
            // The message names the failure kind, never the prompt; the engine's own text may
            // echo input, so only its class goes out.
            await refuse(writer, .init(requestID: r.requestID, code: Admission.code(for: e), message: Self.summary(e)), &rec)
            // An engine that fails (unreachable, 5xx, a timeout, a cut stream) is skipped and verified
            // again now, so adverts stop offering it.
            if Self.failsRuntime(e) {
                runtimeFailed(a.runtimeURL)
                Task { [weak self] in await self?.reverify() }
            }
        case .requesterGone:
            // A replay (or a replay store that failed) is answered with nothing: the pump ended it.
            let outcome = writer.replayRefused ? "replayed" : "requester-gone"
            count(outcome)
            rec.outcome = outcome
        case .cancelled:
            count("cancelled-mid-stream")
            rec.outcome = "cancelled"
        }
        // Not lost when the pump ended before `accept`; a no-op when the answer's write overtook it.
        await s.early?.finish()
    }

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
