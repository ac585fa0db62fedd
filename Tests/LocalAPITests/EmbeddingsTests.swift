import Foundation
import Inference
import Synchronization
import Testing
@testable import LocalAPI

/// The embeddings doors: readers, shapes, and the official clients against a labelled fake
/// embedder (EndToEndTests use the real engine).
@Suite struct EmbeddingsTests {
    /// A clearly labelled fake embedder: vector i of each request is [len(text), i, 0.5].
    final class Asked: Sendable {
        let list = Mutex<[EmbeddingRequest]>([])
    }

    static func fake(_ asked: Asked) -> EmbeddingRouter {
        { r in
            asked.list.withLock { $0.append(r) }
            return .success(EmbeddingAnswer(model: r.model, vectors: r.inputs.enumerated().map { [Double($1.count), Double($0), 0.5] },
                                            promptTokens: r.inputs.count * 2, brain: .onDevice))
        }
    }

    @Test func readersAndShapes() throws {
        let (r, b64) = try EmbeddingsReader.read(Array(#"{"model":"m","input":["a","bb"],"encoding_format":"base64"}"#.utf8))
        #expect(r == EmbeddingRequest(model: "m", inputs: ["a", "bb"]) && b64)
        let old = try EmbeddingsReader.read(Array(#"{"model":"m","prompt":"x"}"#.utf8), field: "prompt")
        #expect(old.request.inputs == ["x"] && !old.base64)
        #expect(throws: LocalAPIError.self) { try EmbeddingsReader.read(Array(#"{"model":"m","input":[[1,2]]}"#.utf8)) }
        #expect(throws: LocalAPIError.self) { try EmbeddingsReader.read(Array(#"{"model":"m","input":"a","dimensions":8}"#.utf8)) }
        let a = EmbeddingAnswer(model: "m", vectors: [[1, -2]], promptTokens: 3, brain: .onDevice)
        let o = object(EmbeddingsWriter.openAI(a, base64: true, homebase: ["brain": "on-device"]))
        let packed = try #require(((o["data"] as? [[String: Any]])?.first?["embedding"]) as? String)
        // 1.0 and -2.0 as little-endian float32s.
        #expect(Array(Data(base64Encoded: packed)!) == [0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0])
        #expect((o["usage"] as? [String: Int])?["prompt_tokens"] == 3)
        #expect(object(EmbeddingsWriter.ollama(a, homebase: [:]))["embeddings"] as? [[Double]] == [[1, -2]])
        #expect(object(EmbeddingsWriter.ollamaLegacy(a))["embedding"] as? [Double] == [1, -2])
    }

    @Test func officialClientsGetTheVectors() async throws {
        let asked = Asked()
        let h = try DoorsHarness(brain: FakeBrain(events: FakeBrain.hello), embedder: Self.fake(asked))
        defer { h.stop() }
        let o = try await runClient("responses_client.py", [h.base + "/v1", "k", "embeddings", "emb"])
        #expect(o["count"] as? Int == 2 && o["sizes"] as? [Int] == [3, 3], "\(o)")
        #expect(o["first"] as? [Double] == [3, 0, 0.5] && o["base64_size"] as? Int == 3 && o["prompt_tokens"] as? Int == 4)
        let e = try await runClient("ollama_probe_client.py", [h.base, "embed", "emb"])
        #expect(e["count"] as? Int == 2 && e["old_size"] as? Int == 3 && e["same"] as? Bool == true, "\(e)")
        #expect(asked.list.withLock { $0.map(\.inputs) } == [["one", "two"], ["three"], ["one", "two"], ["one"]])
    }

    /// What the OpenAI door and the Ollama door answer for an embedding of `model` when the
    /// route fails with `failure`: (status, body) each, the Ollama one's `error` field.
    func bothDoors(_ failure: EmbeddingFailure, model: String) async throws -> (openAI: (status: Int, body: String), ollama: (status: Int, error: String)) {
        let h = try DoorsHarness(brain: FakeBrain(events: FakeBrain.hello), embedder: { _ in .failure(failure) })
        defer { h.stop() }
        let body = #"{"model":"\#(model)","input":"x"}"#
        let openAI = try await send(h.base + "/v1/embeddings", body: body)
        let ollama = try await send(h.base + "/api/embed", body: body)
        return ((openAI.status, openAI.body), (ollama.status, object(Array(ollama.body.utf8))["error"] as? String ?? ""))
    }

    @Test func aRouteThatCannotSaysSoAndNoEmbedderIsAClearError() async throws {
        let unavailable = try await bothDoors(.unavailable("embeddings through the Homebase: not yet"), model: "m")
        #expect(unavailable.openAI.status == 501 && unavailable.openAI.body.contains("embeddings through the Homebase: not yet"))
        #expect(unavailable.ollama.status == 501 && unavailable.ollama.error.contains("not yet"))
        let unknown = try await bothDoors(.unknownModel("no embedding model zz here: available e5"), model: "zz")
        #expect(unknown.openAI.status == 404 && unknown.openAI.body.contains("no embedding model zz here: available e5"))
        #expect(unknown.ollama.status == 404 && unknown.ollama.error.contains("zz"))
        let failed = try await bothDoors(.failed("through the own Homebase failed: not connected"), model: "zz")
        #expect(failed.openAI.status == 502 && failed.openAI.body.contains("not connected") && !failed.openAI.body.contains("embedding\""))
        let none = try DoorsHarness(brain: FakeBrain(events: FakeBrain.hello))
        defer { none.stop() }
        let r = try await send(none.base + "/api/embeddings", body: #"{"model":"m","prompt":"x"}"#)
        #expect(r.status == 501 && r.body.contains("no embedding engine"))
    }
}
