import Inference
import OnDeviceEngine

/// The on-device brain: the shared `llama-server` on a GGUF file, asked through
/// `OpenAIChatClient`. Engine failures (not found, exited, not healthy) are thrown as
/// `InferenceError.unreachable` with the reason, like any other brain's.
public struct OnDeviceProvider: ChatProvider {
    public let supervisor: LlamaServerSupervisor
    public let model: GGUFTarget
    public let timeouts: HTTPTimeouts

    public init(supervisor: LlamaServerSupervisor, model: GGUFTarget, timeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.supervisor = supervisor; self.model = model; self.timeouts = timeouts
    }

    public var brain: BrainKind { .onDevice }

    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatEvent, Error> {
        let (events, out) = AsyncThrowingStream.makeStream(of: ChatEvent.self)
        let task = Task { [supervisor, model, timeouts] in
            do {
                // A server that died a moment ago may not be reaped yet: a request it cannot
                // take before any output restarts it once, instead of failing the answer.
                for attempt in 1...2 {
                    let endpoint = try await supervisor.endpoint(for: model)
                    let client = OpenAIChatClient(.init(baseURL: endpoint.url, timeouts: timeouts, brain: .onDevice))
                    var local = request
                    local.model = endpoint.alias
                    var yielded = false
                    do {
                        for try await event in client.stream(local) { yielded = true; out.yield(event) }
                        break
                    } catch InferenceError.unreachable(let why) where !yielded && attempt == 1 {
                        await supervisor.unresponsive(endpoint, why: why)
                    }
                }
                out.finish()
            } catch let error as EngineError {
                out.finish(throwing: InferenceError.unreachable("on-device engine: \(error)"))
            } catch is CancellationError {
                out.finish(throwing: InferenceError.cancelled)
            } catch {
                out.finish(throwing: error)
            }
        }
        out.onTermination = { reason in
            if case .cancelled = reason { task.cancel() }
        }
        return events
    }
}
