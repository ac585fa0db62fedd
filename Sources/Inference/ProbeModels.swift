import Foundation

/// The model list of an identified engine, in the engine's own order.
struct ProbeModels: Sendable {
    let http: ProbeHTTP
    let config: RuntimeProbe.Configuration

    func list(_ engine: EngineIdentity) async throws -> [RuntimeModel] {
        switch engine.kind {
        case .ollama: return try await ollama()
        case .llamaServer: return try await llamaServer(engine.llamaProps)
        case .vllm, .openAICompatible: return openAI(engine.openAIModels ?? [])
        }
    }

    /// `GET /api/tags`, then `POST /api/show` per model for capabilities and context length.
    private func ollama() async throws -> [RuntimeModel] {
        let tags = try await http.call(config.root + "/api/tags", step: .models)
        guard tags.status == 200, let list = tags.object?.objects("models") else {
            throw ProbeStop(step: .models, message: "Ollama at \(config.shownURL) did not list its models (GET /api/tags: \(tags.status))")
        }
        var out: [RuntimeModel] = []
        for m in list.prefix(config.maxModels) {
            guard let tag = m.string("model") ?? m.string("name") else { continue }
            let details = m.object("details") ?? [:]
            var model = RuntimeModel(tag: tag, family: details.string("family"),
                                     parameterSize: details.string("parameter_size"),
                                     quantization: details.string("quantization_level"))
            // A model whose details cannot be read stays listed, with unknown capabilities.
            if let show = try? await http.call(config.root + "/api/show", method: "POST", json: ["model": tag], step: .models),
               show.status == 200, let info = show.object {
                if let caps = info["capabilities"] as? [String] {
                    model.capabilities = Set(caps.compactMap(ModelCapability.init(rawValue:)))
                }
                model.contextLength = Self.contextLength(in: info.object("model_info") ?? [:])
            }
            out.append(model)
        }
        return out
    }

    /// `model_info` keys are per architecture: `qwen3.context_length`, `llama.context_length`.
    static func contextLength(in info: [String: Any]) -> Int? {
        info.first { $0.key.hasSuffix(".context_length") }.flatMap { ($0.value as? NSNumber)?.intValue }
    }

    /// `GET /v1/models` (with llama.cpp's `meta`), completed by what `/props` said.
    private func llamaServer(_ props: LlamaProps?) async throws -> [RuntimeModel] {
        let answer = try await http.call(config.apiRoot + "/models", step: .models)
        guard answer.status == 200, let data = answer.object?.objects("data") else {
            throw ProbeStop(step: .models, message: "llama-server at \(config.shownURL) did not list its model (GET /v1/models: \(answer.status))")
        }
        let embeds: Set<ModelCapability> = await llamaMakesEmbeddings() ? [.embedding] : []
        return data.prefix(config.maxModels).compactMap { m in
            guard let id = m.string("id") else { return nil }
            let meta = m.object("meta") ?? [:]
            return RuntimeModel(tag: id, family: nil, parameterSize: meta.int("n_params").map(Self.count),
                                quantization: props?.fileType,
                                contextLength: props?.contextLength ?? meta.int("n_ctx") ?? meta.int("n_ctx_train"),
                                capabilities: (props?.capabilities ?? [.completion]).union(embeds))
        }
    }

    /// vLLM says `max_model_len`; plain servers say only the id. Capabilities are unknown.
    private func openAI(_ data: [[String: Any]]) -> [RuntimeModel] {
        data.prefix(config.maxModels).compactMap { m in
            guard let id = m.string("id") else { return nil }
            return RuntimeModel(tag: id, contextLength: m.int("max_model_len"))
        }
    }

    /// 115776 → "115.78K", 7_241_732_096 → "7.24B" (Ollama's spelling).
    static func count(_ n: Int) -> String {
        let units: [(Double, String)] = [(1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")]
        for (scale, suffix) in units where Double(n) >= scale {
            return String(format: "%.2f%@", Double(n) / scale, suffix)
        }
        return String(n)
    }
}
