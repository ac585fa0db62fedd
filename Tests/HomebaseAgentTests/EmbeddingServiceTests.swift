import Foundation
import Inference
import Sealing
import Signing
import Testing
import TestSupport
import Wire
@testable import HomebaseAgent

/// `embed-request` at the host: the admission decision without sockets, the engine answer's
/// parsing, and a real host answering through a real relay from a second llama-server on the
/// tiny model started `--embeddings --pooling mean` (the engine that answers is named in each
/// test).
@Suite(.serialized) struct EmbeddingServiceTests {
    let sibling = try! DeviceIdentity.generate(name: "laptop", now: 1)
    let friend = try! DeviceIdentity.generate(name: "friend", now: 1)

    static func runtime(_ url: String, _ models: [RuntimeModel]) -> StoredRuntime {
        StoredRuntime(url: url, kind: .llamaServer, version: nil, available: true, models: models,
                      addedMs: 0, verifiedMs: 0, checkedMs: 0, lastError: nil)
    }

    var catalog: ModelCatalog {
        ModelCatalog(runtimes: [Self.runtime("http://chat", [RuntimeModel(tag: "chat", capabilities: [.completion])]),
                                Self.runtime("http://embed", [RuntimeModel(tag: "e5", capabilities: [.embedding])])])
    }

    func decide(_ model: String, from who: DeviceIdentity, grants: [GrantRecord] = []) -> EmbeddingAdmission.Decision {
        let view = AdmissionView(siblings: [sibling.signingKey.publicKey],
                                 grants: Dictionary(grouping: grants, by: { $0.grantee.signingKey }), catalog: catalog, nowMs: 1000)
        return EmbeddingAdmission.decide(.init(requestID: .repeating(3), model: model, inputs: ["x"]),
                                         from: who.signingKey.publicKey, view: view)
    }

    func refusal(_ d: EmbeddingAdmission.Decision) -> (AppMessage.ErrorCode, String)? {
        if case .refuse(let e) = d { return (e.code, e.message) }
        return nil
    }

    func grant(_ models: [String], revoked: Bool = false) -> GrantRecord {
        GrantRecord(grantID: .random(), grantee: friend.record, models: models, revoked: revoked, createdMs: 0)
    }

    @Test func onlyEmbeddingModelsOfTheCatalogAndOnlyGrantedOnes() {
        #expect(decide("e5", from: sibling) == .serve(.init(runtimeURL: "http://embed", isSibling: true)))
        // A chat-only model makes no embeddings; the refusal names the model and what is served.
        let chat = refusal(decide("chat", from: sibling))
        #expect(chat?.0 == .modelUnavailable && chat?.1.contains("chat") == true && chat?.1.contains("e5") == true)
        #expect(refusal(decide("gone", from: sibling))?.0 == .modelUnavailable)
        #expect(refusal(decide("", from: sibling))?.0 == .badRequest)
        #expect(refusal(decide("e5", from: friend))?.0 == .revoked)
        #expect(refusal(decide("e5", from: friend, grants: [grant(["e5"], revoked: true)]))?.0 == .revoked)
        let ungranted = refusal(decide("e5", from: friend, grants: [grant(["chat"])]))
        #expect(ungranted?.0 == .modelUnavailable && ungranted?.1.contains("not granted") == true)
        #expect(decide("e5", from: friend, grants: [grant(["e5"])]) == .serve(.init(runtimeURL: "http://embed", isSibling: false)))
        // Chat never goes to an embedding-only model.
        #expect(catalog.runtimeURL(for: "e5") == nil && catalog.embeddingURL(for: "chat") == nil)
    }

    @Test func theEngineAnswerIsReadInIndexOrderAndChecked() throws {
        let body = Array(#"{"data":[{"index":1,"embedding":[3,4]},{"index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":5}}"#.utf8)
        #expect(EngineEmbeddings.parse(body, inputs: 2) == .vectors([[1, 2], [3, 4]], promptTokens: 5))
        #expect(EngineEmbeddings.parse(body, inputs: 3) == .failed(.hostError, "the embedding engine's answer: 2 vectors for 3 inputs"))
        let ragged = Array(#"{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1,2]}]}"#.utf8)
        #expect(EngineEmbeddings.parse(ragged, inputs: 2) == .failed(.hostError, "the embedding engine's answer: vectors of different or zero sizes"))
        #expect(EngineEmbeddings.parse(Array("nope".utf8), inputs: 1) == .failed(.hostError, "the embedding engine's answer: not a list of vectors"))
    }

    /// Real: the probe tells the `--embeddings` llama-server from the chat one, and the host
    /// answers an `embed-request` through the relay with that engine's own vectors.
    @Test func aRealEmbeddingEngineAnswersThroughTheRelay() async throws {
        let engine = try await EmbeddingEngine.start()
        defer { engine.stop() }
        let report = try #require(await RuntimeProbe(.init(baseURL: engine.url)).run().report)
        #expect(report.models.first?.capabilities?.contains(.embedding) == true, "\(report)")
        let direct = try await engine.vectors(["one", "two"])

        try await HostFixture.with(runtime: nil, prepare: { f in
            let store = try f.files.openStore()
            try store.save(Self.runtime(engine.url, report.models))
            store.close()
        }) { f in
            let answer = try await f.guest.embed(.init(requestID: .random(), model: "tiny-embed", inputs: ["one", "two"]), to: f.host)
            guard case .embedResult(let r) = answer else { Issue.record("no vectors: \(answer)"); return }
            #expect(r.model == "tiny-embed" && r.vectors.count == 2)
            #expect(r.vectors.map { $0.count } == direct.map { $0.count })
            let diff = zip(r.vectors.joined(), direct.joined()).map { abs($0 - $1) }.max() ?? 1
            #expect(diff < 1e-5, "the host's vectors are not the engine's own")

            let other = try await f.guest.embed(.init(requestID: .random(), model: "tiny-nope", inputs: ["one"]), to: f.host)
            guard case .error(let e) = other else { Issue.record("not an error: \(other)"); return }
            #expect(e.code == .modelUnavailable && e.message.contains("tiny-nope") && e.message.contains("tiny-embed"))
            #expect(!e.message.contains("one"), "input text in an error message")
        }
    }
}

extension EmbeddingServiceTests {
    /// Real host, real relay, the same embedding llama-server: a grantee gets vectors only of a
    /// granted model and within the grant's rate (1 a minute here: the second is `busy`).
    /// (`revoked` for a device without a grant in force: `onlyEmbeddingModelsOfTheCatalogAndOnlyGrantedOnes`.)
    @Test func granteesUnderTheGrantsTermsAsForChat() async throws {
        let engine = try await EmbeddingEngine.start()
        defer { engine.stop() }
        let report = try #require(await RuntimeProbe(.init(baseURL: engine.url)).run().report)
        let f = try await HostFixture(runtime: nil, sibling: false)
        do {
            let store = try f.files.openStore()
            try store.save(Self.runtime(engine.url, report.models))
            try store.saveGrant(GrantRecord(grantID: .random(), grantee: f.guest.identity.record, models: ["tiny-embed"],
                                            ratePerMinute: 1, createdMs: nowMs()))
            store.close()
            try f.agent.reload()
            try await f.start()
            let first = try await f.guest.embed(.init(requestID: .random(), model: "tiny-embed", inputs: ["one"]), to: f.host)
            guard case .embedResult(let r) = first else { Issue.record("no vectors: \(first)"); throw CancellationError() }
            #expect(r.vectors.count == 1 && !r.vectors[0].isEmpty)
            let second = try await f.guest.embed(.init(requestID: .random(), model: "tiny-embed", inputs: ["two"]), to: f.host)
            guard case .error(let over) = second else { Issue.record("not refused: \(second)"); throw CancellationError() }
            #expect(over.code == .busy && over.message.contains("rate"))
            let ungranted = try await f.guest.embed(.init(requestID: .random(), model: "tiny", inputs: ["one"]), to: f.host)
            guard case .error(let notGranted) = ungranted else { Issue.record("not refused: \(ungranted)"); throw CancellationError() }
            #expect(notGranted.code == .modelUnavailable && notGranted.message.contains("not granted"))
        } catch {
            await f.stop()
            throw error
        }
        await f.stop()
    }
}

/// A second llama-server on the tiny model, `--embeddings --pooling mean`, alias `tiny-embed`.
struct EmbeddingEngine: Sendable {
    let url: String
    let server: ProcessBox

    static func start() async throws -> EmbeddingEngine {
        let dir = ProcessInfo.processInfo.environment["HOMEBASE_ENGINE_DIR"] ?? (NSHomeDirectory() + "/.cache/homebase/engine")
        let binary = dir + "/bin/llama-server", model = dir + "/models/tiny-seed0.gguf"
        guard FileManager.default.isExecutableFile(atPath: binary), FileManager.default.fileExists(atPath: model) else {
            throw TestSetupError("llama-server or the tiny model missing under \(dir): run scripts/engine/install.sh and scripts/engine/tiny_model.sh")
        }
        let port = try freePort()
        let server = try ProcessBox(binary, ["--model", model, "--host", "127.0.0.1", "--port", "\(port)", "--alias", "tiny-embed",
                                             "--threads", "2", "--embeddings", "--pooling", "mean"])
        let engine = EmbeddingEngine(url: "http://127.0.0.1:\(port)", server: server)
        let quick = HTTPTimeouts(connect: .seconds(1), firstByte: .seconds(5), idle: .seconds(5))
        for _ in 0..<600 {
            guard server.process.isRunning else { throw TestSetupError("the embedding llama-server exited early") }
            if let r = try? await HTTPStreamClient().send(HTTPStreamRequest(url: engine.url + "/health", timeouts: quick)) {
                _ = try? await r.collect()
                if r.status == 200 { return engine }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        server.stop()
        throw TestSetupError("the embedding llama-server never answered /health")
    }

    func stop() { server.stop() }

    /// The engine's own vectors, asked directly.
    func vectors(_ inputs: [String]) async throws -> [[Float]] {
        let body = [UInt8](try JSONSerialization.data(withJSONObject: ["model": "tiny-embed", "input": inputs]))
        let r = try await HTTPStreamClient().send(HTTPStreamRequest(method: "POST", url: url + "/v1/embeddings",
                                                                    headers: [HTTPHeader("Content-Type", "application/json")], body: body))
        guard case .vectors(let v, _) = EngineEmbeddings.parse(try await r.collect(), inputs: inputs.count) else {
            throw TestSetupError("the embedding engine gave no vectors")
        }
        return v
    }
}

extension GuestSide {
    /// Sends an `embed-request` and returns its one answer (`embed-result` or `error`).
    func embed(_ request: AppMessage.EmbedRequest, to host: DeviceRecord) async throws -> AppMessage {
        let (outcome, replies) = await courier.sendEmbedRequest(request, to: host)
        guard outcome == .sent else { throw TestSetupError("embed-request not sent: \(outcome)") }
        for await reply in replies {
            if case .message(let m) = reply { return m }
        }
        throw TestSetupError("the reply stream ended without an answer")
    }
}
