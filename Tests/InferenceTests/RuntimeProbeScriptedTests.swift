import Testing
@testable import Inference

/// The probe against scripted runtimes: every kind it detects and every way it refuses.
@Suite struct RuntimeProbeScriptedTests {
    static func probe(_ scenario: String, id: String = testID(), kind: RuntimeKind? = nil) async throws -> ProbeResult {
        await RuntimeProbe(.init(baseURL: try ScriptedEngine.url(scenario), expectedKind: kind,
                                 extraHeaders: [HTTPHeader("X-Test-ID", id)])).run()
    }

    @Test func ollamaWithModels() async throws {
        let id = testID()
        let report = try #require(try await Self.probe("ollama", id: id).report)
        #expect(report.kind == .ollama)
        #expect(report.version == "0.12.3")
        #expect(report.verdict == .ready)
        #expect(report.advice == nil)
        #expect(report.models == [
            RuntimeModel(tag: "qwen3:0.6b", family: "qwen3", parameterSize: "751.63M", quantization: "Q4_K_M",
                         contextLength: 40960, capabilities: [.completion, .tools]),
            RuntimeModel(tag: "nomic-embed-text:latest", family: "nomic-bert", parameterSize: "137M",
                         quantization: "F16", contextLength: 2048, capabilities: [.embedding]),
        ])
        let trial = try #require(report.trial)
        #expect(trial.model == "qwen3:0.6b")
        #expect(trial.passed)
        // The trial asked for one token, streamed.
        let chat = try #require(try await ScriptedEngine.records(id).last { $0["path"] as? String == "/v1/chat/completions" })
        let body = try #require(chat["body"] as? [String: Any])
        #expect(body["max_tokens"] as? Int == 1)
        #expect(body["model"] as? String == "qwen3:0.6b")
    }

    /// A vision model (#23): `/api/show` says `vision`, `model_info` its context length under its
    /// architecture's key; the embedding model beside it is listed with `embedding` alone.
    @Test func ollamaVisionAndEmbeddingModels() async throws {
        let report = try #require(try await Self.probe("ollama-vision").report)
        #expect(report.verdict == .ready)
        #expect(report.models == [
            RuntimeModel(tag: "llava:7b", family: "llama", parameterSize: "7B", quantization: "Q4_0",
                         contextLength: 4096, capabilities: [.completion, .vision]),
            RuntimeModel(tag: "nomic-embed-text:latest", family: "nomic-bert", parameterSize: "137M",
                         quantization: "F16", contextLength: 2048, capabilities: [.embedding]),
        ])
        #expect(report.models.map(\.mayEmbed) == [false, true])
        #expect(report.trial?.model == "llava:7b")  // the trial never picks the embedding model
    }

    @Test func ollamaWithoutModelsIsReachableButEmpty() async throws {
        let report = try #require(try await Self.probe("ollama-empty").report)
        #expect(report.verdict == .noModels)
        #expect(report.trial == nil)
        #expect(report.advice == "the engine has no models: pull one with `ollama pull TAG`")
    }

    @Test func ollamaWithOnlyEmbeddingModels() async throws {
        let report = try #require(try await Self.probe("ollama-embed").report)
        #expect(report.verdict == .noCompletionModel)
        #expect(report.trial == nil)
        #expect(report.advice?.contains("ollama pull") == true)
    }

    @Test func vllmDetectedByItsModelList() async throws {
        let report = try #require(try await Self.probe("vllm").report)
        #expect(report.kind == .vllm)
        #expect(report.version == "0.11.0")
        #expect(report.models == [RuntimeModel(tag: "Qwen/Qwen2.5-0.5B-Instruct", contextLength: 32768)])
        #expect(report.verdict == .ready)
    }

    @Test func failedTrialIsReported() async throws {
        let report = try #require(try await Self.probe("vllm-broken").report)
        #expect(report.verdict == .trialFailed)
        #expect(report.trial?.failure == .http(status: 500, message: "CUDA out of memory"))
        #expect(report.advice?.contains("CUDA out of memory") == true)
    }

    @Test func nonEngineIsRefused() async throws {
        let failure = try #require(try await Self.probe("not-an-engine").failure)
        #expect(failure.step == .identify)
        #expect(failure.message.hasSuffix("answered but is not an inference engine (GET /v1/models: 404)"))
    }

    /// llama-server answers 503 while it loads: the probe says so and stops, never going on to
    /// take it for a plain OpenAI endpoint once it has loaded (which `runtime add` then stored).
    @Test func aLlamaServerStillLoadingIsNotTakenForAnOpenAIEndpoint() async throws {
        let failure = try #require(try await Self.probe("llama-loading").failure)
        #expect(failure.step == .health)
        #expect(failure.message.contains("still loading its model"), "\(failure.message)")
    }

    @Test func deadURLIsRefused() async throws {
        let url = "http://127.0.0.1:\(try freePort())"
        let failure = try #require(await RuntimeProbe(.init(baseURL: url)).run().failure)
        #expect(failure.step == .connect)
        #expect(failure.message.hasPrefix("nothing answers at \(url)"))
        #expect(failure.message.hasSuffix("is the engine running?"))
    }

    @Test func expectedKindMustMatch() async throws {
        let failure = try #require(try await Self.probe("vllm", kind: .ollama).failure)
        #expect(failure.step == .identify)
        #expect(failure.message.contains("is not Ollama (GET /api/version: 404)"))
    }

    @Test func parameterCounts() {
        #expect(ProbeModels.count(115_776) == "115.78K")
        #expect(ProbeModels.count(7_241_732_096) == "7.24B")
        #expect(ProbeModels.count(999) == "999")
    }
}
