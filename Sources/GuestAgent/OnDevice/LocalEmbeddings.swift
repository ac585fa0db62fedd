import Foundation
import Inference
import Routing
import OnDeviceEngine

/// Embeddings of the on-device model, for `guest serve`'s embeddings doors: a second
/// llama-server on the same GGUF, started with `--embeddings --pooling mean` on first use (the
/// chat server cannot serve both: `--embeddings` restricts a server to embeddings), supervised
/// like the first and stopped with serve. `EmbeddingRouting` sends here only requests that name
/// the on-device model (whatever the chat route); one that names another model is refused
/// rather than answered with vectors of a different model, which would be useless to the client.
public actor LocalEmbeddings {
    public enum Outcome: Sendable, Equatable {
        case vectors([[Double]], promptTokens: Int, model: String)
        /// This route or model cannot make them (with why).
        case unavailable(String)
        /// The engine failed (with why).
        case failed(String)
    }

    private let context: GuestContext
    private let supervisor: LlamaServerSupervisor
    private let timeouts: HTTPTimeouts

    public init(context: GuestContext, timeouts: HTTPTimeouts = HTTPTimeouts()) {
        self.context = context
        self.timeouts = timeouts
        var c = context.supervisor.configuration
        c.extraArguments += ["--embeddings", "--pooling", "mean"]
        c.logPath = context.paths.dataDirectory + "/llama-server-embeddings.log"
        supervisor = LlamaServerSupervisor(c)
    }

    /// "default" and the on-device model's alias (with or without `:latest`) name it.
    public func embed(model: String, inputs: [String]) async -> Outcome {
        let decision = context.router.resolve()
        guard case .model(let target) = context.factory.resolver.resolve(decision.localModel) else {
            return .unavailable("no on-device model to make embeddings with (guest models use ID)")
        }
        guard [target.alias, "default", target.alias + ":latest"].contains(model) else {
            return .unavailable("\(model.prefix(80)) is not the on-device model (\(target.alias)): "
                                + "vectors of another model would not match yours")
        }
        do {
            let endpoint = try await supervisor.endpoint(for: target)
            let body = try JSONSerialization.data(withJSONObject: ["model": target.alias, "input": inputs])
            let r = try await HTTPStreamClient().send(HTTPStreamRequest(method: "POST", url: endpoint.url + "/v1/embeddings",
                                                                        headers: [HTTPHeader("Content-Type", "application/json")],
                                                                        body: [UInt8](body), timeouts: timeouts))
            let bytes = try await r.collect(limit: 64 << 20)
            guard r.status == 200 else { return .failed("the embedding engine answered \(r.status)") }
            guard let o = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
                  let data = o["data"] as? [[String: Any]] else { return .failed("the embedding engine's answer is not a list of vectors") }
            let ordered = data.sorted { ($0["index"] as? Int ?? 0) < ($1["index"] as? Int ?? 0) }
            let vectors = ordered.compactMap { ($0["embedding"] as? [NSNumber])?.map(\.doubleValue) }
            guard vectors.count == inputs.count else { return .failed("the embedding engine gave \(vectors.count) vectors for \(inputs.count) inputs") }
            let tokens = ((o["usage"] as? [String: Any])?["prompt_tokens"] as? NSNumber)?.intValue ?? 0
            return .vectors(vectors, promptTokens: tokens, model: target.alias)
        } catch {
            return .failed("the embedding engine failed: \((error as? EngineError)?.description ?? (error as? InferenceError)?.description ?? "\(type(of: error))")")
        }
    }

    public func stop() async { await supervisor.stop() }
}
