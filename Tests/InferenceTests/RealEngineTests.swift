import EngineFixture
import Foundation
import Testing
@testable import Inference

/// Against the real llama.cpp `llama-server` serving the tiny random model. If the engine or the
/// model is missing, every test here FAILS with the install commands.
@Suite(.realEngine(jinja: true, nonEngine: true)) struct RealEngineTests {
    @Test func streamedAnswerWithUsage() async throws {
        let engine = try RealEngine.get()
        let client = OpenAIChatClient(.init(baseURL: engine.url))
        let r = await drain(client.stream(ChatRequest(model: "tiny", messages: [ChatMessage(role: .user, content: "Hello")],
                                                     maxTokens: 16, temperature: 0)))
        #expect(r.error == nil)
        #expect(!text(of: r.events).isEmpty)
        // The tiny model never emits its end token: every run goes to max_tokens.
        guard case .done(let reason, let usage)? = r.events.last else { Issue.record("no .done: \(r.events)"); return }
        #expect(reason == "length")
        #expect(usage?.completionTokens == 16)
        #expect((usage?.promptTokens ?? 0) > 0)
    }

    @Test func continuationAndToolsAreAccepted() async throws {
        let engine = try RealEngine.get()
        let client = OpenAIChatClient(.init(baseURL: engine.url + "/v1/"))
        let tool = ToolDefinition(name: "get_time", description: "the time",
                                  parametersJSON: #"{"type":"object","properties":{}}"#)
        let r = await drain(client.stream(ChatRequest(model: "tiny", messages: [ChatMessage(role: .user, content: "Hi")],
                                                     tools: [tool], maxTokens: 4, continuation: "Hello")))
        #expect(r.error == nil)
        guard case .done? = r.events.last else { Issue.record("no .done: \(r.events)"); return }
    }

    @Test func probeDetectsLlamaServerAndPassesTheTrial() async throws {
        let engine = try RealEngine.get()
        let report = try #require(await RuntimeProbe(.init(baseURL: engine.url)).run().report)
        #expect(report.kind == .llamaServer)
        #expect(report.verdict == .ready)
        let model = try #require(report.models.first)
        #expect(model.tag == "tiny")
        #expect(model.contextLength == 2048)
        #expect(model.capabilities == [.completion, .tools])
        #expect(model.quantization == "all F32")
        #expect(report.trial?.passed == true)
        print("probe: llama-server \(report.version ?? "?"), trial \(report.trial?.elapsed ?? .zero)")
    }

    @Test func nonEngineWebServerIsRefused() async throws {
        let web = try #require(try RealEngine.get().nonEngineURL)
        let failure = try #require(await RuntimeProbe(.init(baseURL: web)).run().failure)
        #expect(failure.step == .identify)
        #expect(failure.message == "\(web) answered but is not an inference engine (GET /v1/models: 404)")
    }

    @Test func deadURLIsRefused() async throws {
        _ = try RealEngine.get()
        let failure = try #require(await RuntimeProbe(.init(baseURL: "http://127.0.0.1:\(try freePort())")).run().failure)
        #expect(failure.step == .connect)
    }

    @Test func cancelStopsTheGeneration() async throws {
        let engine = try RealEngine.get()
        let client = OpenAIChatClient(.init(baseURL: engine.url))
        var seen = 0
        // 1,900 tokens: far more than the 3 read before walking away.
        for try await e in client.stream(ChatRequest(model: "tiny", messages: [ChatMessage(role: .user, content: "Cancel me")],
                                                    maxTokens: 1900)) {
            if case .text = e { seen += 1 }
            if seen == 3 { break }
        }
        #expect(seen == 3)
        // llama-server logs this when it finds the client gone and frees the slot mid-generation.
        #expect(try await engine.waitForLog("cancel task"), "the engine never saw the connection closed")
    }

    /// Prints the client's token rate on a long answer (a number to read, never asserted).
    @Test func throughputReport() async throws {
        let engine = try RealEngine.get()
        let client = OpenAIChatClient(.init(baseURL: engine.url))
        let clock = ContinuousClock(), start = clock.now
        var tokens = 0, first: Duration?
        for try await e in client.stream(ChatRequest(model: "tiny", messages: [ChatMessage(role: .user, content: "Go")],
                                                    maxTokens: 300)) {
            if case .text = e { tokens += 1; if first == nil { first = clock.now - start } }
        }
        let total = clock.now - start
        let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
        #expect(tokens > 0)
        print("throughput: \(tokens) text events in \(total), \(Int(Double(tokens) / seconds)) events/s, first after \(first ?? .zero)")
    }

    static let clockTool = ToolDefinition(name: "get_time", description: "the current time",
                                          parametersJSON: #"{"type":"object","properties":{},"additionalProperties":false}"#)

    /// The first turn of a forced tool call on the tiny random model. llama-server (`--jinja`)
    /// turns `tool_choice: "required"` into a grammar that still allows free text before the
    /// call, which random weights never end; an assistant prefill of the call's opening tag (an
    /// ordinary trailing assistant message, which llama-server continues) puts the grammar inside
    /// the call, and `parallel_tool_calls: false` lets it end after one.
    static func forcedCall(model: String = "tiny") -> ChatRequest {
        var o = GenerationOptions()
        o.extra = ["parallel_tool_calls": "false"]
        return ChatRequest(model: model, messages: [ChatMessage(role: .user, content: "What time is it?"),
                                                    ChatMessage(role: .assistant, content: "<tool_call>\n")],
                           tools: [clockTool], toolChoice: .required, maxTokens: 64, temperature: 0, options: o)
    }

    /// With `--jinja` and `tool_choice: "required"` llama-server's grammar makes a well-formed call
    /// even from random weights: it streams as deltas, then comes whole; the result sent back as a
    /// `tool` turn is answered.
    @Test func requiredToolChoiceReturnsACallAndTheResultIsAnswered() async throws {
        let engine = try RealEngine.get()
        let client = OpenAIChatClient(.init(baseURL: engine.url))
        let ask = ChatMessage(role: .user, content: "What time is it?")
        let r = await drain(client.stream(Self.forcedCall()))
        #expect(r.error == nil)
        let deltas = r.events.compactMap { if case .toolCallDelta(let d) = $0 { d } else { nil } }
        let calls = r.events.compactMap { if case .toolCall(let c) = $0 { c } else { nil } }
        let call = try #require(calls.first, "no tool call: \(r.events)")
        #expect(call.name == "get_time")
        #expect(try JSONSerialization.jsonObject(with: Data(call.argumentsJSON.utf8)) is [String: Any])
        #expect(deltas.first?.name == "get_time")
        #expect(deltas.map(\.arguments).joined() == call.argumentsJSON)
        guard case .done(let reason, _)? = r.events.last else { Issue.record("no .done: \(r.events)"); return }
        #expect(reason == "tool_calls")

        let second = await drain(client.stream(ChatRequest(model: "tiny", messages: [
            ask, ChatMessage(role: .assistant, content: "", toolCalls: [call]),
            ChatMessage(role: .tool, content: "12:00", toolCallID: call.id),
        ], tools: [Self.clockTool], maxTokens: 8, temperature: 0)))
        #expect(second.error == nil)
        guard case .done? = second.events.last else { Issue.record("second turn not answered: \(second.events)"); return }
    }

    /// The same seed samples the same answer at temperature 1, and a stop string taken from that
    /// answer ends the second run exactly before it.
    @Test func seedAndStopAreHonoured() async throws {
        let engine = try RealEngine.get()
        let client = OpenAIChatClient(.init(baseURL: engine.url))
        func ask(_ stop: [String]) async -> (events: [ChatEvent], error: Error?) {
            var o = GenerationOptions()
            o.seed = 1234; o.stop = stop
            return await drain(client.stream(ChatRequest(model: "tiny", messages: [ChatMessage(role: .user, content: "Say")],
                                                        maxTokens: 24, temperature: 1, options: o)))
        }
        let first = await ask([]), again = await ask([])
        #expect(first.error == nil)
        let whole = text(of: first.events)
        #expect(whole == text(of: again.events), "the same seed gave another answer")
        // The tiny model's tokens are single characters: the stop string is two of them, from the middle.
        let chars = Array(whole)
        try #require(chars.count >= 12, "a short answer: \(whole)")
        let stop = String(chars[8..<10])
        let cut = try #require(whole.range(of: stop))
        let stopped = await ask([stop])
        #expect(stopped.error == nil)
        #expect(text(of: stopped.events) == String(whole[..<cut.lowerBound]))
        guard case .done(let reason, _)? = stopped.events.last else { Issue.record("no .done"); return }
        #expect(reason == "stop")
    }

    /// `response_format` json_schema reaches llama-server as a grammar: even random weights give
    /// exactly an object of the schema, and the answer ends there.
    @Test func jsonSchemaResponseFormatShapesTheAnswer() async throws {
        let engine = try RealEngine.get()
        let client = OpenAIChatClient(.init(baseURL: engine.url))
        var o = GenerationOptions()
        o.responseFormat = .jsonSchema(name: "flag", schemaJSON: #"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}"#, strict: true)
        let r = await drain(client.stream(ChatRequest(model: "tiny", messages: [ChatMessage(role: .user, content: "ok?")],
                                                     maxTokens: 64, temperature: 0, options: o)))
        #expect(r.error == nil)
        let answer = text(of: r.events)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any], "not JSON: \(answer)")
        #expect(Set(object.keys) == ["ok"])
        #expect(object["ok"] is Bool || object["ok"] is NSNumber)
        guard case .done(let reason, _)? = r.events.last else { Issue.record("no .done"); return }
        #expect(reason == "stop")
    }
}
