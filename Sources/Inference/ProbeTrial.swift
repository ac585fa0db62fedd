/// The last step: a one-token completion through the same client the router will use.
struct ProbeTrial: Sendable {
    let config: RuntimeProbe.Configuration
    /// Engines that do not say what their models can do get this many tries, one model each.
    static let maxUnknownTries = 3

    func report(engine: EngineIdentity, models: [RuntimeModel]) async -> RuntimeReport {
        var report = RuntimeReport(baseURL: config.baseURL, kind: engine.kind, version: engine.version,
                                   models: models, trial: nil, verdict: .ready, advice: nil)
        guard !models.isEmpty else {
            report.verdict = .noModels
            report.advice = switch engine.kind {
            case .ollama: "the engine has no models: pull one with `ollama pull TAG`"
            case .llamaServer: "llama-server serves no model: start it with `--model FILE.gguf`"
            default: "the engine serves no models: load one, then probe again"
            }
            return report
        }
        var candidates = models.filter(\.mayComplete)
        if let wanted = config.trialModel, let i = candidates.firstIndex(where: { $0.tag == wanted }) {
            candidates.insert(candidates.remove(at: i), at: 0)
        }
        guard !candidates.isEmpty else {
            report.verdict = .noCompletionModel
            report.advice = "no model here can chat (embedding models only): "
                + (engine.kind == .ollama ? "pull a chat model with `ollama pull TAG`" : "load a chat model")
            return report
        }
        let tries = candidates[0].capabilities == nil ? Self.maxUnknownTries : 1
        for model in candidates.prefix(tries) {
            let outcome = await trial(model.tag)
            report.trial = outcome
            if outcome.passed { return report }
        }
        report.verdict = .trialFailed
        if let t = report.trial, let f = t.failure {
            report.advice = "the engine answers but \(t.model) failed a one-token completion (\(f)): check the engine's log"
        }
        return report
    }

    func trial(_ model: String) async -> TrialOutcome {
        let client = OpenAIChatClient(.init(baseURL: config.baseURL, apiKey: config.apiKey,
                                            extraHeaders: config.extraHeaders, timeouts: config.trialTimeouts))
        let request = ChatRequest(model: model, messages: [ChatMessage(role: .user, content: "Reply with one word.")],
                                  maxTokens: 1, temperature: 0)
        let clock = ContinuousClock(), start = clock.now
        var failure: InferenceError? = .interrupted
        do {
            for try await event in client.stream(request) {
                if case .done = event { failure = nil }
            }
        } catch let e as InferenceError {
            failure = e
        } catch {
            failure = .malformed("unexpected failure: \(type(of: error))")
        }
        return TrialOutcome(model: model, failure: failure, elapsed: clock.now - start)
    }
}
