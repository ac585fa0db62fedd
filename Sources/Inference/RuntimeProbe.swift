/// Verifies an engine before it is trusted ("test before persist"): finds what answers at a URL
/// (Ollama, llama.cpp `llama-server`, vLLM, any OpenAI-compatible server), lists its models and
/// runs a one-token trial completion through `OpenAIChatClient`.
///
/// Store an endpoint only when the verdict is `.ready`. A reachable engine without a chat model
/// (`.noModels`, `.noCompletionModel`) is worth showing with its advice, not worth routing to.
public struct RuntimeProbe: Sendable {
    public struct Configuration: Sendable {
        /// Server root (`http://127.0.0.1:11434`) or API root ending in `/v1`.
        public var baseURL: String
        /// nil: detect the kind. Set: only that kind is accepted.
        public var expectedKind: RuntimeKind?
        public var apiKey: String?
        public var extraHeaders: [HTTPHeader]
        /// For the management requests. Default: connect 3 s, 10 s to an answer.
        public var timeouts: HTTPTimeouts
        /// For the trial: long first byte, since Ollama loads a model on its first request.
        public var trialTimeouts: HTTPTimeouts
        /// Try this model first when the engine has it.
        public var trialModel: String?
        /// Bound on the models examined (Ollama needs one request per model).
        public var maxModels: Int

        public init(baseURL: String, expectedKind: RuntimeKind? = nil, apiKey: String? = nil,
                    extraHeaders: [HTTPHeader] = [],
                    timeouts: HTTPTimeouts = HTTPTimeouts(connect: .seconds(3), firstByte: .seconds(10), idle: .seconds(10)),
                    trialTimeouts: HTTPTimeouts = HTTPTimeouts(connect: .seconds(3), firstByte: .seconds(120), idle: .seconds(30)),
                    trialModel: String? = nil, maxModels: Int = 64) {
            self.baseURL = baseURL; self.expectedKind = expectedKind; self.apiKey = apiKey
            self.extraHeaders = extraHeaders; self.timeouts = timeouts; self.trialTimeouts = trialTimeouts
            self.trialModel = trialModel; self.maxModels = maxModels
        }

        var root: String { EngineURL.serverRoot(baseURL) }
        /// The URL as messages show it: without credentials.
        var shownURL: String { EngineURL.redacted(baseURL) }
        var apiRoot: String { EngineURL.apiRoot(baseURL) }
        var headers: [HTTPHeader] {
            (apiKey.map { $0.isEmpty ? [] : [HTTPHeader("Authorization", "Bearer \($0)")] } ?? []) + extraHeaders
        }
    }

    public let configuration: Configuration

    public init(_ configuration: Configuration) { self.configuration = configuration }

    /// Runs every step; never throws: failures are `.failure` with the step and what to do.
    public func run() async -> ProbeResult {
        let c = configuration
        let http = ProbeHTTP(baseURL: c.shownURL, headers: c.headers, timeouts: c.timeouts)
        do {
            let engine = try await identify(http)
            let models = try await ProbeModels(http: http, config: c).list(engine)
            return .report(await ProbeTrial(config: c).report(engine: engine, models: models))
        } catch let stop as ProbeStop {
            return .failure(stop.failure)
        } catch {
            return .failure(ProbeFailure(step: .identify, message: "\(c.shownURL) could not be probed: \(type(of: error))"))
        }
    }

    /// What answers, in this order: Ollama's `/api/version`, llama-server's `/props`, then
    /// `/v1/models` for anything OpenAI-compatible. The first request is the reachability test.
    func identify(_ http: ProbeHTTP) async throws -> EngineIdentity {
        let c = configuration, want = c.expectedKind
        let version = try await http.call(c.root + "/api/version", step: .identify)
        if want == nil || want == .ollama {
            if version.status == 200, let v = version.object?.string("version") {
                return EngineIdentity(kind: .ollama, version: v)
            }
            if want == .ollama { throw notA("Ollama", "GET /api/version", version.status) }
        }
        if want == nil || want == .llamaServer {
            let props = try await http.call(c.root + "/props", step: .identify)
            if props.status == 200, let p = props.object, p["default_generation_settings"] != nil || p["total_slots"] != nil {
                let health = try await http.call(c.root + "/health", step: .health)
                if health.status == 503 {
                    throw ProbeStop(step: .health, message: "llama-server at \(c.shownURL) is still loading its model: probe again in a moment")
                }
                guard health.status == 200 else {
                    throw ProbeStop(step: .health, message: "llama-server at \(c.shownURL) reports it is unhealthy (GET /health: \(health.status))")
                }
                return EngineIdentity(kind: .llamaServer, version: p.string("build_info"), llamaProps: LlamaProps(p))
            }
            // llama-server answers 503 everywhere while it loads its model; going on to
            // /v1/models could then meet it loaded and take it for a plain OpenAI endpoint.
            if props.status == 503 {
                throw ProbeStop(step: .health, message: "\(c.shownURL) is still loading its model (GET /props: 503): probe again in a moment")
            }
            if want == .llamaServer { throw notA("llama-server", "GET /props", props.status) }
        }
        let models = try await http.call(c.apiRoot + "/models", step: .identify)
        if models.status == 401 || models.status == 403 {
            throw ProbeStop(step: .health, message: "\(c.shownURL) refused the request (GET /v1/models: \(models.status)): set its API key")
        }
        guard models.status == 200, let data = models.object?.objects("data") else {
            throw ProbeStop(step: .identify, message: "\(c.shownURL) answered but is not an inference engine (GET /v1/models: \(models.status))")
        }
        let isVLLM = want == .vllm || data.contains { $0.string("owned_by") == "vllm" }
        if isVLLM {
            let v = try? await http.call(c.root + "/version", step: .identify)
            return EngineIdentity(kind: .vllm, version: v?.object?.string("version"), openAIModels: data)
        }
        if let want, want != .openAICompatible { throw notA(want.rawValue, "GET /v1/models", models.status) }
        return EngineIdentity(kind: .openAICompatible, version: nil, openAIModels: data)
    }

    private func notA(_ kind: String, _ request: String, _ status: Int) -> ProbeStop {
        ProbeStop(step: .identify, message: "\(configuration.shownURL) is not \(kind) (\(request): \(status)): check the URL and the runtime chosen")
    }
}

/// What `identify` learnt, handed to the model listing.
struct EngineIdentity: @unchecked Sendable {  // the JSON arrays are read-only once parsed
    var kind: RuntimeKind
    var version: String?
    var llamaProps: LlamaProps? = nil
    var openAIModels: [[String: Any]]? = nil
}

/// The parts of llama-server's `/props` that describe the served model.
struct LlamaProps: Sendable {
    var contextLength: Int?
    var fileType: String?
    var capabilities: Set<ModelCapability>

    init(_ p: [String: Any]) {
        contextLength = p.object("default_generation_settings")?.int("n_ctx")
        fileType = p.string("model_ftype")
        capabilities = [.completion]
        if p.object("chat_template_caps")?["supports_tools"] as? Bool == true { capabilities.insert(.tools) }
        if p.object("modalities")?["vision"] as? Bool == true { capabilities.insert(.vision) }
    }
}
