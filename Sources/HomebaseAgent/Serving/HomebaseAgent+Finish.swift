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
        case .done(let reason, let usage, let text, let calls):
            remember(a.plan, answer: text, toolCalls: calls)
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
                runtimeFailed(a.runtimeURL)
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
