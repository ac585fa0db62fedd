@testable import HomebaseAgent
@testable import Inference
import Testing
import Wire

/// What the advert says of each model is what the runtime probe learnt (#23): tools, vision,
/// embeddings, context length. Embedding-only models are advertised (for embeddings) but never
/// served chat.
@Suite struct CatalogCapabilitiesTests {
    static func runtime(_ models: [RuntimeModel]) -> StoredRuntime {
        StoredRuntime(url: "http://127.0.0.1:11434", kind: .ollama, version: "0.12.3", available: true, models: models,
                      addedMs: 0, verifiedMs: 0, checkedMs: 0, lastError: nil)
    }

    @Test func theAdvertCarriesTheProbesCapabilities() {
        let catalog = ModelCatalog(runtimes: [Self.runtime([
            RuntimeModel(tag: "qwen3:0.6b", family: "qwen3", contextLength: 40960, capabilities: [.completion, .tools]),
            RuntimeModel(tag: "llava:7b", family: "llama", contextLength: 4096, capabilities: [.completion, .vision]),
            RuntimeModel(tag: "nomic-embed-text:latest", family: "nomic-bert", contextLength: 2048, capabilities: [.embedding]),
            RuntimeModel(tag: "Qwen/Qwen2.5-0.5B-Instruct", contextLength: 32768),  // vLLM: capabilities unknown
        ])])
        let byTag = Dictionary(uniqueKeysWithValues: catalog.models.map { ($0.tag, $0) })
        #expect(byTag["qwen3:0.6b"]?.capabilities == [.completion, .tools])
        #expect(byTag["qwen3:0.6b"]?.contextLength == 40960)
        #expect(byTag["llava:7b"]?.capabilities == [.completion, .vision])
        #expect(byTag["nomic-embed-text:latest"]?.capabilities == [.embedding])
        #expect(byTag["nomic-embed-text:latest"]?.contextLength == 2048)
        #expect(byTag["Qwen/Qwen2.5-0.5B-Instruct"]?.capabilities == [.completion])  // never guessed
        #expect(byTag["Qwen/Qwen2.5-0.5B-Instruct"]?.contextLength == 32768)
        // Chat goes to the chat models only.
        #expect(catalog.runtimeURL(for: "qwen3:0.6b") == "http://127.0.0.1:11434")
        #expect(catalog.runtimeURL(for: "nomic-embed-text:latest") == nil)
    }

    @Test func aModelThatNeitherChatsNorEmbedsIsNotAdvertised() {
        let catalog = ModelCatalog(runtimes: [Self.runtime([RuntimeModel(tag: "odd", capabilities: [.vision])])])
        #expect(catalog.models.isEmpty)
    }
}

/// `runtime add` keeps an engine's embedding models (they were dropped before #23).
@Suite struct StoredEmbeddingModelsTests {
    @Test func aVerifiedRuntimeKeepsItsEmbeddingModels() throws {
        let store = try HostFiles(dataDir: try temporaryDirectory("embed")).openStore()
        defer { store.close() }
        let report = RuntimeReport(baseURL: "http://127.0.0.1:11434", kind: .ollama, version: "0.12.3", models: [
            RuntimeModel(tag: "qwen3:0.6b", capabilities: [.completion, .tools]),
            RuntimeModel(tag: "nomic-embed-text:latest", contextLength: 2048, capabilities: [.embedding]),
        ], trial: nil, verdict: .ready, advice: nil)
        try store.saveVerified(report, url: report.baseURL, nowMs: 1)
        let catalog = ModelCatalog(runtimes: try store.runtimes())
        #expect(catalog.models.map(\.tag) == ["qwen3:0.6b", "nomic-embed-text:latest"])
        #expect(catalog.models.last?.capabilities == [.embedding])
    }
}
