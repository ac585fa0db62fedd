import Inference

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
                let endpoint = try await supervisor.endpoint(for: model)
                let client = OpenAIChatClient(.init(baseURL: endpoint.url, timeouts: timeouts, brain: .onDevice))
                var local = request
                local.model = endpoint.alias
                for try await event in client.stream(local) { out.yield(event) }
                out.finish()
            } catch let error as GuestError {
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
