import Foundation
import Glibc
@testable import GuestAgent
@testable import OnDeviceEngine
import Inference
import AgentKit
import Testing

/// The REAL llama-server on the tiny model, started through the supervisor.
@Suite(.serialized) struct OnDeviceEngineTests {
    let request = ChatRequest(model: "ignored", messages: [ChatMessage(role: .user, content: "hello")], maxTokens: 12)

    @Test func streamsAnOnDeviceAnswer() async throws {
        let tiny = try Engine.tiny()
        try await withSupervisor { sup in
            let provider = OnDeviceProvider(supervisor: sup, model: tiny)
            #expect(provider.brain == .onDevice)
            var pieces = 0
            var done = false
            for try await event in provider.stream(request) {
                if case .text(let t) = event, !t.isEmpty { pieces += 1 }
                if case .done = event { done = true }
            }
            #expect(pieces > 1, "tokens should arrive as several pieces, not one block")
            #expect(done)
            #expect(await sup.starts == 1)
            // A second call reuses the running server.
            let again = await collect(provider.stream(request))
            #expect(again.done && !again.text.isEmpty)
            #expect(await sup.starts == 1)
        }
    }

    @Test func restartsAfterACrashAndAnswers() async throws {
        let tiny = try Engine.tiny()
        try await withSupervisor { sup in
            let provider = OnDeviceProvider(supervisor: sup, model: tiny)
            #expect(await collect(provider.stream(request)).done)
            let first = try #require(await sup.pid)
            #expect(kill(first, SIGKILL) == 0)
            let after = await collect(provider.stream(request))
            #expect(after.error == nil)
            #expect(after.done && !after.text.isEmpty)
            let second = try #require(await sup.pid)
            #expect(second != first)
            #expect(await sup.starts == 2)
            let crash = await sup.lastCrash
            // "signal 9" when reaped before the next request, "unresponsive" when the request
            // found the socket closed first: a crash either way.
            #expect(crash?.hasPrefix("llama-server died") == true, "lastCrash: \(crash ?? "nil")")
        }
    }

    /// The warm floor (#24): `warm` begins a start without waiting; the request that comes next
    /// joins that start (or finds the server it made) instead of starting one of its own.
    @Test func aWarmStartIsJoinedByTheNextRequest() async throws {
        let tiny = try Engine.tiny()
        try await withSupervisor { sup in
            #expect(await sup.warm(tiny) == .started)
            #expect(await sup.warm(tiny) == .alreadyStarting, "a second warm joins too")
            let provider = OnDeviceProvider(supervisor: sup, model: tiny)
            let answer = await collect(provider.stream(request))
            #expect(answer.done && !answer.text.isEmpty)
            let found = await sup.found
            #expect(found.warmStarts == 1 && found.cold == 0, "\(found)")
            #expect(found.starting + found.running == 1, "\(found)")
            #expect(await sup.starts == 1)
            #expect(await sup.warm(tiny) == .alreadyRunning)
        }
    }

    @Test func stopKillsTheServerAndRefusesLaterStarts() async throws {
        let tiny = try Engine.tiny()
        let sup = Engine.supervisor()
        _ = try await sup.endpoint(for: tiny)
        let pid = try #require(await sup.pid)
        #expect(processExists(pid))
        await sup.stop()
        #expect(!processExists(pid))
        await #expect(throws: EngineError.stopped) { try await sup.endpoint(for: tiny) }
    }

    @Test func ggufModelRunsTheAgentLoop() async throws {
        let tiny = try Engine.tiny()
        try await withSupervisor { sup in
            let model = GGUFModel(supervisor: sup)
            try await model.load(tiny)
            #expect(await model.runtime == .gguf)
            #expect(await model.loadedModelID == "tiny")
            let texts = Texts()
            let result = try await AgentChat.run(prompt: "what time is it", model: model, allowedDirectories: [],
                                                 output: { texts.append($0) },
                                                 config: AgentConfig(params: GenerationParams(maxTokens: 8)))
            #expect(result.runtime == .gguf)
            #expect(texts.joined.contains("runtime gguf"))
        }
    }

    @Test func engineNotFoundIsAnOrdinaryFailure() async throws {
        let sup = LlamaServerSupervisor(.init(locator: EngineLocator(configured: "/nonexistent/llama-server", environment: [:])))
        let provider = OnDeviceProvider(supervisor: sup, model: GGUFTarget(path: "/nonexistent.gguf", alias: "x"))
        let r = await collect(provider.stream(request))
        guard case .unreachable(let why)? = r.error as? InferenceError else {
            Issue.record("expected .unreachable, got \(String(describing: r.error))"); return
        }
        #expect(why.contains("llama-server not found"))
    }
}

final class Texts: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [String] = []
    func append(_ s: String) { lock.withLock { parts.append(s) } }
    var joined: String { lock.withLock { parts.joined() } }
}
