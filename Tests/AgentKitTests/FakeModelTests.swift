import AgentKit
import Inference
import Testing

@Suite struct FakeModelTests {
    private func texts(_ stream: AsyncThrowingStream<ModelEvent, Error>) async throws -> ([String], [ModelMetrics]) {
        var words: [String] = [], metrics: [ModelMetrics] = []
        for try await event in stream {
            switch event {
            case .text(let t): words.append(t)
            case .metrics(let m): metrics.append(m)
            case .toolCall: Issue.record("unexpected call")
            }
        }
        return (words, metrics)
    }

    @Test func playsWordByWordThenTheFallbackAndRecordsPrompts() async throws {
        let fake = FakeModel(script: [.answer("one  two\nthree")], fallback: "no more")
        let first = try await texts(fake.stream(messages: [ChatMessage(role: .user, content: "a")], tools: [], params: .init()))
        #expect(first.0 == ["one  ", "two\n", "three"])
        #expect(first.1 == [ModelMetrics(isFinal: true, completionTokens: 3, finishReason: "stop")])
        let second = try await texts(fake.stream(messages: [ChatMessage(role: .user, content: "b")], tools: [], params: .init()))
        #expect(second.0.joined() == "no more")
        #expect(await fake.prompts.map { $0.map(\.content) } == [["a"], ["b"]])
        #expect(fake.emittedTokens == 5)
    }

    @Test func staysLabelledAsScriptedWhateverItLoads() async throws {
        let fake = FakeModel(script: [])
        let spec = try #require(ModelCatalog.bundled.spec(id: "qwen2.5-0.5b-instruct-q4_k_m"))
        try await fake.load(spec, from: nil) { _ in }
        #expect(await fake.loadedModelID == "fake (scripted)")
        #expect(await fake.runtime == .fake)
    }

    @Test func cancellingTheConsumerStopsEmissionWithinOneToken() async throws {
        let words = (1...400).map { "w\($0)" }.joined(separator: " ")
        let fake = FakeModel(script: [.answer(words)], delay: .milliseconds(2))
        let stream = await fake.stream(messages: [], tools: [], params: .init())
        let (received, receivedContinuation) = AsyncStream<Int>.makeStream()
        let consumer = Task {
            var n = 0
            for try await event in stream { if case .text = event { n += 1; receivedContinuation.yield(n) } }
            receivedContinuation.finish()
        }
        for await n in received where n >= 3 { break }
        consumer.cancel()
        let atCancel = fake.emittedTokens
        await fake.waitUntilIdle()
        let after = fake.emittedTokens
        #expect(after - atCancel <= 1, "emitted \(after - atCancel) tokens after cancel")
        #expect(after < 400)
        _ = await consumer.result
    }

    @Test func cancellingAnAgentRunEndsItAsCancelled() async throws {
        let words = (1...400).map { "w\($0)" }.joined(separator: " ")
        let fake = FakeModel(script: [.answer(words)], delay: .milliseconds(2))
        let (seen, seenContinuation) = AsyncStream<Void>.makeStream()
        let run = Task {
            try await Agent(model: fake, tools: []).run([ChatMessage(role: .user, content: "x")]) { _ in
                seenContinuation.yield()
            }
        }
        for await _ in seen { break }
        run.cancel()
        await #expect(throws: AgentError.cancelled) { try await run.value }
        await fake.waitUntilIdle()
        #expect(fake.emittedTokens < 400)
    }
}
