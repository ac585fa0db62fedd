import AgentKit
import Foundation
import Inference
import Testing

// The runtime of the doc comment at the top of Model.swift, verbatim: the example must compile
// and drive the loop.
actor EchoModel: Model {
    static func availability() -> ModelAvailability { .available }
    let runtime = RuntimeKind.remote
    let toolFamily: ToolFamily? = nil
    private(set) var loadedModelID: String?
    func load(_ spec: ModelSpec, from directory: URL?,
              progress: @escaping @Sendable (Double) -> Void) async throws {
        loadedModelID = spec.id; progress(1)
    }
    func unload() async { loadedModelID = nil }
    func stream(messages: [ChatMessage], tools: [ToolDefinition],
                params: GenerationParams) -> AsyncThrowingStream<ModelEvent, Error> {
        let last = messages.last?.content ?? ""
        return AsyncThrowingStream { continuation in
            let task = Task {
                for word in last.split(separator: " ") {
                    if Task.isCancelled { break }
                    continuation.yield(.text(word + " "))
                }
                continuation.yield(.metrics(ModelMetrics(isFinal: true, finishReason: "stop")))
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

@Suite struct DocExampleTests {
    @Test func theDocumentedRuntimeDrivesTheLoop() async throws {
        let model = EchoModel()
        let spec = try #require(ModelCatalog.bundled.spec(id: "tiny-random-llama"))
        try await model.load(spec, from: nil) { _ in }
        let result = try await Agent(model: model, tools: [CurrentTimeTool()])
            .run([ChatMessage(role: .user, content: "say it back")])
        #expect(result.answer == "say it back")
        #expect(result.modelID == "tiny-random-llama" && result.runtime == .remote)
    }
}
