import Foundation
import Testing
@testable import Inference

/// The OpenAI client against the scripted engine on loopback: every failure mode, one request each.
@Suite struct ScriptedEngineTests {
    @Test func streamedAnswerAndTheRequestSent() async throws {
        let id = testID()
        let r = await drain(try scriptedClient("ok", id: id, apiKey: "sk-test").stream(
            ChatRequest(model: "scripted", messages: [ChatMessage(role: .user, content: "hi")],
                        maxTokens: 8, continuation: "Hel")))
        #expect(r.error == nil)
        // The script starts with the prefill "Hel", as llama-server does: that echo is cut.
        #expect(text(of: r.events) == "lo!")
        #expect(r.events.last == .done(finishReason: "stop", usage: Usage(promptTokens: 7, completionTokens: 3)))
        let req = try #require(try await ScriptedEngine.records(id).first)
        #expect(req["path"] as? String == "/v1/chat/completions")
        let headers = try #require(req["headers"] as? [String: String])
        #expect(headers["authorization"] == "Bearer sk-test")
        #expect(headers["expect"] == nil)
        let body = try #require(req["body"] as? [String: Any])
        #expect(body["stream"] as? Bool == true)
        #expect((body["messages"] as? [[String: Any]])?.last?["content"] as? String == "Hel")
    }

    @Test func toolCallsOverTheWire() async throws {
        let r = await drain(try scriptedClient("tools", id: testID()).stream(hello))
        #expect(r.error == nil)
        #expect(r.events == OpenAIStreamDecoderTests.toolEvents.dropLast() + [.done(finishReason: "tool_calls", usage: nil)])
    }

    @Test func refusedConnectionIsUnreachable() async throws {
        let client = OpenAIChatClient(.init(baseURL: "http://127.0.0.1:\(try freePort())"))
        let r = await drain(client.stream(hello))
        guard case .unreachable? = r.error as? InferenceError else {
            Issue.record("expected .unreachable, got \(String(describing: r.error))"); return
        }
        #expect(r.events.isEmpty)
    }

    @Test func serverErrorCarriesItsMessage() async throws {
        let r = await drain(try scriptedClient("http500", id: testID()).stream(hello))
        #expect(r.error as? InferenceError == .http(status: 500, message: "engine exploded"))
    }

    @Test func unknownModelIsModelUnavailable() async throws {
        let r = await drain(try scriptedClient("model404", id: testID()).stream(hello))
        #expect(r.error as? InferenceError == .modelUnavailable("model \"nope\" not found, try pulling it first"))
    }

    @Test func unauthorizedCarriesItsMessage() async throws {
        let r = await drain(try scriptedClient("http401", id: testID(), apiKey: "wrong").stream(hello))
        #expect(r.error as? InferenceError == .http(status: 401, message: "Incorrect API key provided"))
        #expect(!"\(r.error!)".contains("wrong"))
    }

    @Test(arguments: [("inband-data", "model crashed"), ("inband-event", "overloaded"),
                      ("inband-ollama", "llama runner process has terminated")])
    func inBandErrorMidStream(_ scenario: String, _ message: String) async throws {
        let r = await drain(try scriptedClient(scenario, id: testID()).stream(hello))
        #expect(r.events == [.text("Hel")])
        #expect(r.error as? InferenceError == .inBand(message))
    }

    @Test func stallPastTheIdleLimitTimesOut() async throws {
        let t = HTTPTimeouts(connect: .seconds(5), firstByte: .seconds(10), idle: .milliseconds(200))
        let r = await drain(try scriptedClient("stall", id: testID(), timeouts: t).stream(hello))
        #expect(r.events == [.text("Hel")])
        guard case .timeout? = r.error as? InferenceError else {
            Issue.record("expected .timeout, got \(String(describing: r.error))"); return
        }
    }

    @Test func disconnectMidStreamIsInterrupted() async throws {
        let r = await drain(try scriptedClient("disconnect", id: testID()).stream(hello))
        #expect(text(of: r.events) == "Hello")
        #expect(r.error as? InferenceError == .interrupted)
    }

    @Test func cleanHTTPEndWithoutDoneIsInterrupted() async throws {
        let r = await drain(try scriptedClient("clean-end-without-done", id: testID()).stream(hello))
        #expect(text(of: r.events) == "Hello!")
        #expect(r.error as? InferenceError == .interrupted)
    }

    @Test func slowFirstTokenIsNotAStall() async throws {
        // The idle limit starts at the first body byte; until then the (long) first-byte limit holds.
        let t = HTTPTimeouts(connect: .seconds(5), firstByte: .seconds(20), idle: .milliseconds(100))
        let r = await drain(try scriptedClient("slowfirst", id: testID(), timeouts: t).stream(hello))
        #expect(r.error == nil)
        #expect(text(of: r.events) == "Hello!")
    }

    @Test func slowFirstTokenPastTheFirstByteLimitTimesOut() async throws {
        let t = HTTPTimeouts(connect: .seconds(5), firstByte: .milliseconds(100), idle: .seconds(20))
        let r = await drain(try scriptedClient("slowfirst", id: testID(), timeouts: t).stream(hello))
        #expect(r.events.isEmpty)
        guard case .timeout? = r.error as? InferenceError else {
            Issue.record("expected .timeout, got \(String(describing: r.error))"); return
        }
    }

    @Test func cancellingTheConsumerClosesTheConnection() async throws {
        let id = testID()
        let client = try scriptedClient("endless", id: id)
        let seen = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                var n = 0
                for try await _ in client.stream(hello) {
                    n += 1
                    if n == 3 { break }
                }
                return n
            }
            return try await group.next()!
        }
        #expect(seen == 3)
        let closed = try await ScriptedEngine.waitForRecord(id, event: "closed")
        // The peer saw the close long before its 3,000 tokens were out.
        #expect((closed["sent"] as? Int ?? .max) < 3000)
    }

    @Test func cancellingTheTaskClosesTheConnection() async throws {
        let id = testID()
        let client = try scriptedClient("endless", id: id)
        let started = AsyncStream.makeStream(of: Void.self)
        let task = Task { () -> (done: Bool, error: Error?) in
            var n = 0, done = false
            do {
                for try await e in client.stream(hello) {
                    n += 1
                    if case .done = e { done = true }
                    if n == 2 { started.continuation.yield() }
                }
            } catch { return (done, error) }
            return (done, nil)
        }
        for await _ in started.stream { break }
        task.cancel()
        // A cancelled stream just ends (or throws .cancelled): never with `.done`.
        let outcome = await task.value
        #expect(!outcome.done)
        #expect(outcome.error == nil || outcome.error as? InferenceError == .cancelled)
        let closed = try await ScriptedEngine.waitForRecord(id, event: "closed")
        #expect((closed["sent"] as? Int ?? .max) < 3000)
    }
}
