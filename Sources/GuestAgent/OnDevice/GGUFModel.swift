import AgentKit
import Foundation
import Inference
import OnDeviceEngine

/// AgentKit's `Model` on the on-device engine (runtime `gguf`): the agent loop of
/// `guest chat --tools` runs on the same shared `llama-server` as every other on-device call.
///
/// Tools go to llama-server, which parses calls natively when the model's template allows;
/// calls written as text are parsed in the spec's dialect (`toolFamily`), so both work.
public actor GGUFModel: Model {
    public static func availability() -> ModelAvailability {
        let locator = EngineLocator(environment: ProcessInfo.processInfo.environment)
        do { _ = try locator.locate(); return .available }
        catch { return .unavailable(reason: error.description) }
    }

    public let runtime = RuntimeKind.gguf
    public private(set) var loadedModelID: String?
    public private(set) var toolFamily: ToolFamily?
    private let supervisor: LlamaServerSupervisor
    private var target: GGUFTarget?
    private let timeouts: HTTPTimeouts

    public init(supervisor: LlamaServerSupervisor, timeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.supervisor = supervisor
        self.timeouts = timeouts
    }

    /// Loads `spec.file` from `directory` (required: a GGUF lives on disk).
    public func load(_ spec: ModelSpec, from directory: URL?,
                     progress: @escaping @Sendable (Double) -> Void) async throws {
        guard let directory else { throw AgentError.unavailable("a GGUF model needs the directory of its file") }
        try await load(GGUFTarget(path: directory.appendingPathComponent(spec.file).path, alias: spec.id),
                       toolFamily: spec.toolFamily, progress: progress)
    }

    /// Loads a file the resolver chose: starts (or reuses) the engine on it.
    public func load(_ target: GGUFTarget, toolFamily: ToolFamily? = .hermes,
                     progress: @escaping @Sendable (Double) -> Void = { _ in }) async throws {
        progress(0)
        do {
            _ = try await supervisor.endpoint(for: target)
        } catch let error as EngineError {
            throw AgentError.unavailable(error.description)
        }
        self.target = target
        self.toolFamily = toolFamily
        loadedModelID = target.alias
        progress(1)
    }

    public func unload() async {
        loadedModelID = nil
        target = nil
    }

    public func stream(messages: [ChatMessage], tools: [ToolDefinition],
                       params: GenerationParams) -> AsyncThrowingStream<ModelEvent, Error> {
        guard let target else { return AsyncThrowingStream { $0.finish(throwing: AgentError.notLoaded) } }
        let provider = OnDeviceProvider(supervisor: supervisor, model: target, timeouts: timeouts)
        let request = ChatRequest(model: target.alias, messages: messages, tools: tools,
                                  maxTokens: params.maxTokens, temperature: params.temperature)
        return ProviderModel.events(of: provider.stream(request))
    }
}
