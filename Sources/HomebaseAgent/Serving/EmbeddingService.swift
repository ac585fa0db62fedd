import Courier
import Foundation
import Inference
import Signing
import Wire

/// Decides an `embed-request` like a chat request (Admission.swift), in this order: who asks
/// (a sibling, or a grantee with a grant in force: else `revoked`), well-formedness
/// (`bad_request`), whether the model is granted and listed here with the embedding bit
/// (`model_unavailable`, naming the model). Rate and slots come after, in the agent.
enum EmbeddingAdmission {
    struct Plan: Sendable, Equatable {
        var runtimeURL: String
        var isSibling: Bool
    }

    enum Decision: Sendable, Equatable {
        case serve(Plan)
        /// Answered with this error at once.
        case refuse(AppMessage.InferenceError)
    }

    static func decide(_ r: AppMessage.EmbedRequest, from sender: PublicKey, view: AdmissionView) -> Decision {
        func fail(_ code: AppMessage.ErrorCode, _ message: String) -> Decision {
            .refuse(AppMessage.InferenceError(requestID: r.requestID, code: code, message: message))
        }
        let isSibling = view.siblings.contains(sender)
        let shown = String(r.model.prefix(80))  // a tag, never input text
        if !isSibling {
            let (active, refusal) = view.grantsInForce(of: sender)
            if let refusal { return fail(.revoked, refusal) }
            guard active.contains(where: { $0.models.contains(r.model) }) else {
                return fail(.modelUnavailable, "model \(shown) is not granted to this device")
            }
        }
        guard !r.model.isEmpty else { return fail(.badRequest, "an embed-request names a model") }
        guard let url = view.catalog.embeddingURL(for: r.model) else {
            let available = view.catalog.embeddingTags
            return fail(.modelUnavailable, "model \(shown) makes no embeddings here now (embedding models: "
                        + (available.isEmpty ? "none" : available.joined(separator: ", ")) + ")")
        }
        return .serve(Plan(runtimeURL: url, isSibling: isSibling))
    }
}

extension ModelCatalog {
    /// The runtime making embeddings of `tag`, nil when no available runtime lists it with the
    /// embedding bit.
    func embeddingURL(for tag: String) -> String? {
        entries.first { $0.info.tag == tag && $0.info.capabilities.contains(.embedding) }?.runtimeURL
    }

    var embeddingTags: [String] { entries.filter { $0.info.capabilities.contains(.embedding) }.map(\.info.tag) }
}

/// The engine's OpenAI-compatible `POST /v1/embeddings` (llama-server with `--embeddings`,
/// Ollama, vLLM): the vectors of the inputs, in input order, as binary32.
struct EngineEmbeddings: Sendable {
    let baseURL: String
    let timeouts: HTTPTimeouts
    /// Largest engine answer read: JSON text of the largest result the wire carries (about 12
    /// characters per float).
    static let maxAnswerBytes = Limits.maxEmbedResultBytes * 4

    /// What the engine gave: vectors, or the wire error to answer (not a Swift error: it is
    /// answered, never thrown; the module's one error type is `HomebaseError`).
    enum Outcome: Equatable {
        case vectors([[Float]], promptTokens: UInt32)
        /// Our own words (the engine's text may echo input: only its status goes out).
        case failed(AppMessage.ErrorCode, String)
    }

    func embed(model: String, inputs: [String]) async -> Outcome {
        let body: [UInt8]
        do { body = [UInt8](try JSONSerialization.data(withJSONObject: ["model": model, "input": inputs, "encoding_format": "float"])) } catch {
            return .failed(.badRequest, "the inputs could not be sent to the engine")
        }
        let bytes: [UInt8], status: Int
        do {
            let r = try await HTTPStreamClient().send(HTTPStreamRequest(
                method: "POST", url: EngineURLs.apiRoot(baseURL) + "/embeddings",
                headers: [HTTPHeader("Content-Type", "application/json")], body: body, timeouts: timeouts))
            status = r.status
            bytes = try await r.collect(limit: Self.maxAnswerBytes)
        } catch {
            return .failed(.hostError, "the embedding engine is not reachable")
        }
        guard status == 200 else {
            let code: AppMessage.ErrorCode = status == 400 || status == 413 || status == 422 ? .badRequest
                : status == 404 || status == 501 ? .modelUnavailable : .hostError
            return .failed(code, "the embedding engine answered HTTP \(status)")
        }
        return Self.parse(bytes, inputs: inputs.count)
    }

    /// `{"data":[{"index","embedding":[...]}], "usage":{"prompt_tokens"}}` → vectors in index order.
    static func parse(_ bytes: [UInt8], inputs: Int) -> Outcome {
        func bad(_ why: String) -> Outcome {
            .failed(.hostError, "the embedding engine's answer: \(why)")
        }
        guard let o = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let data = o["data"] as? [[String: Any]] else { return bad("not a list of vectors") }
        let ordered = data.sorted { ($0["index"] as? Int ?? 0) < ($1["index"] as? Int ?? 0) }
        var vectors: [[Float]] = []
        for item in ordered {
            guard let values = item["embedding"] as? [NSNumber] else { return bad("a vector is not a list of numbers") }
            vectors.append(values.map(\.floatValue))
        }
        guard vectors.count == inputs else { return bad("\(vectors.count) vectors for \(inputs) inputs") }
        guard let d = vectors.first?.count, d > 0, vectors.allSatisfy({ $0.count == d }) else {
            return bad("vectors of different or zero sizes")
        }
        guard vectors.allSatisfy({ $0.allSatisfy(\.isFinite) }) else { return bad("a value is not finite") }
        let tokens = ((o["usage"] as? [String: Any])?["prompt_tokens"] as? NSNumber)?.intValue ?? 0
        return .vectors(vectors, promptTokens: UInt32(clamping: tokens))
    }
}

/// `…/v1` of an engine URL (as the chat client spells it).
enum EngineURLs {
    static func apiRoot(_ url: String) -> String {
        var t = Substring(url)
        while t.hasSuffix("/") { t.removeLast() }
        return t.hasSuffix("/v1") ? String(t) : t + "/v1"
    }
}

extension HomebaseAgent {
    /// Answers one `embed-request`: admission, the grantee's rate, a slot of the same gate as
    /// chat, the engine, then `embed-result` (split into parts when large) or `error`. Never
    /// input text in a log or an error message.
    func serveEmbedding(_ d: Delivery, _ r: AppMessage.EmbedRequest) async {
        let sender = d.sender.signingKey
        if state.withLock({ $0.membership.siblings[sender] == nil }) { refreshGrants(of: sender) }  // a revoke holds at once
        let decision = state.withLock { s in
            EmbeddingAdmission.decide(r, from: sender, view: AdmissionView(siblings: Set(s.membership.siblings.keys), grants: s.membership.grants,
                                                                             catalog: s.offer.catalog, nowMs: nowMs()))
        }
        let plan: EmbeddingAdmission.Plan
        switch decision {
        case .refuse(let e): return await refuseEmbedding(d, e)
        case .serve(let p): plan = p
        }
        func refuse(_ code: AppMessage.ErrorCode, _ message: String) async {
            await refuseEmbedding(d, .init(requestID: r.requestID, code: code, message: message))
        }
        guard plan.isSibling || admitRate(sender, nowMs: nowMs()) else { return await refuse(.busy, "over the grant's rate per minute") }
        let lane: ConcurrencyGate.Lane = plan.isSibling ? .own : .grantee(sender)
        switch await gate.acquire(lane, maxWait: configuration.queueWait) {
        case .admitted: break
        case .full:
            if Task.isCancelled { return }
            return await refuse(.busy, "every engine slot is taken")
        case .overCap:
            return await refuse(.busy, "this device already has \(gate.perGrantee) requests here (the host's max-per-grantee)")
        }
        defer { gate.release(lane) }
        guard !Task.isCancelled else { return }
        let engine = EngineEmbeddings(baseURL: plan.runtimeURL, timeouts: configuration.engineTimeouts)
        switch await engine.embed(model: r.model, inputs: r.inputs) {
        case .failed(let code, let message):
            await refuse(code, "\(message) (model \(r.model.prefix(80)))")
            if code == .hostError { Task { [weak self] in await self?.reverify() } }
        case .vectors(let vectors, let tokens):
            let result = AppMessage.EmbedResult(requestID: r.requestID, model: r.model, promptTokens: tokens, vectors: vectors)
            let outcome = await courier.send(.embedResult(result), to: d.sender)
            if outcome == .sent { count("embedded") } else {
                log("embed-result to \(sender.hex.prefix(16))…: \(outcome)")
                count("embed-undelivered")
            }
        }
    }

    private func refuseEmbedding(_ d: Delivery, _ e: AppMessage.InferenceError) async {
        _ = await courier.send(.error(e), to: d.sender)
        count("embed-" + e.code.name)
    }
}
