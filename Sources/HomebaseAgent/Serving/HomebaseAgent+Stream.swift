import Courier
import Synchronization
import Inference
import InferenceWire
import Wire

/// What `stream` hands on to `finish`: how the pump ended, and the conversation's early disk
/// write (nil for a grantee) that `finish` must see through.
struct StreamedRequest: Sendable {
    var result: PumpResult
    var early: BackgroundWrite?
}

// The second stage of `serve` (HomebaseAgent+Serve): the admitted request on the engine and its
// answer on the link.
extension HomebaseAgent {
    /// Calls the engine and pumps its answer to the requester behind `accept`.
    func stream(_ a: AdmittedRequest, writer: ReplyWriter, trace: TimingTrace?) async -> StreamedRequest {
        let early = EarlyWrite()
        let client = OpenAIChatClient(.init(baseURL: a.runtimeURL, timeouts: configuration.engineTimeouts,
                                            brain: .localEndpoint))
        // The engine starts on the prompt while `accept` travels; chunks follow it on the link
        // without waiting for its confirmation (or each other's): a bounce ends the request.
        let events = client.stream(a.plan.chat)
        trace?.mark(.engineCalled)
        let typed = a.plan.typed
        let preamble: [ReplyEvent] = typed && !a.plan.ignoredOptions.isEmpty ? [.ignoredOptions(a.plan.ignoredOptions)] : []
        if configuration.replyShaping == .cadence { writer.pad(chunksTo: configuration.batchPolicy.shaping.frameBucket) }
        let result = await StreamPump.run(events, policy: configuration.batchPolicy,
                                          probe: configuration.chunkProbe, trace: trace, typed: typed, preamble: preamble,
                                          endInOne: true, ready: { [self] in
            // The request's replay check commits on its own thread while the engine starts:
            // `accept` waits for it; a replay ends the engine request unanswered and unremembered.
            guard await writer.replayChecked() else { return false }
            trace?.mark(.replayChecked)
            // The conversation is held in memory now (the next request may extend it); its disk
            // copy is written off the request path, once `accept` is out. The copy with the answer
            // is written before `done` (in `finish`), and no earlier write lands over it.
            early.set(remember(a.plan, answer: nil).map { p in
                BackgroundWrite { [replicas] in
                    replicas.write(p)
                    trace?.mark(.replicaWritten)
                }
            })
            return true
        }, opening: { heard in
            defer { trace?.mark(.acceptPosted); early.value?.start() }
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
        return StreamedRequest(result: result, early: early.value)
    }
}

/// The conversation's early disk write, made once the replay check accepted the request.
final class EarlyWrite: Sendable {
    private let write = Mutex<BackgroundWrite?>(nil)
    func set(_ w: BackgroundWrite?) { write.withLock { $0 = w } }
    var value: BackgroundWrite? { write.withLock { $0 } }
}
