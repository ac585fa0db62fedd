import Courier
import Inference
import InferenceWire
@testable import RelayRouting
import Routing
import Sealing
import Testing
import Wire

@Suite("answers through the real relay, in memory and over its listener")
struct AnswerTests {
    @Test(arguments: ProviderPath.allCases) func anAnswerStreamsAndTheLedgerThenSendsOnlyTheNewMessages(via path: ProviderPath) async throws {
        let scene = try await Scene([.answer(["Hel", "lo, ", "wörld"])], via: path)
        defer { scene.stop() }
        let p = scene.provider()
        #expect(p.brain == .ownHomebase)
        let first = chat("hi")
        let seen = try await read(p, ChatRequest(model: "tiny", messages: first, maxTokens: 32, temperature: 0.2))
        #expect(seen.failure == nil)
        #expect(seen.text == "Hello, wörld")
        #expect(seen.events.last == .done(finishReason: "stop", usage: Usage(promptTokens: 7, completionTokens: 3)))
        let r1 = try #require(scene.host.requests.first)
        // Nothing in the ledger: the whole conversation, inline.
        #expect(r1.inline && r1.prefixHash == .zero && r1.messages == [.init(role: .user, content: "hi")])
        #expect(r1.model == "tiny" && r1.maxTokens == 32 && r1.temperaturePerMille == 200 && r1.continuation == nil)

        // The next turn extends what the host now holds: only the answer and the new question.
        let second = chat("hi", "Hello, wörld", "and then?")
        let again = try await read(p, ChatRequest(model: "tiny", messages: second, continuation: "Well"))
        #expect(again.done && again.text == "Hello, wörld")
        let r2 = try #require(scene.host.requests.last)
        let plan = ConversationPlan(messages: second.map(WireBridge.wire))
        #expect(!r2.inline && r2.conversationID == r1.conversationID && r2.conversationID == plan.conversationID)
        #expect(r2.prefixHash == plan.hashes[1])
        #expect(r2.messages.map(\.content) == ["Hello, wörld", "and then?"])
        #expect(r2.continuation == "Well" && r2.options.maxTokens == nil && r2.options.temperature == nil)
        #expect(scene.host.cancels.isEmpty && scene.host.deltas.isEmpty)
        #expect(scene.ledger.heldPrefix(host: scene.host.record.signingKey, conversation: plan.conversationID) == plan.fullHash)
    }

    @Test(arguments: ProviderPath.allCases) func aJoinedHomebaseIsTheJoinedBrainAndAnswersToo(via path: ProviderPath) async throws {
        let scene = try await Scene([.answer(["ok"])], via: path)
        defer { scene.stop() }
        let p = scene.provider(.joined)
        #expect(p.brain == .joinedHomebase)
        let seen = try await read(p, ChatRequest(model: "tiny", messages: chat("hi")))
        #expect(seen.done && seen.text == "ok" && scene.host.requests.count == 1)
    }

    @Test(arguments: ProviderPath.allCases) func toolsImagesAndToolTurnsCrossAndToolCallsComeBack(via path: ProviderPath) async throws {
        let call = AppMessage.ToolCall(id: "call_1", name: "now", argumentsJSON: "{\"tz\":\"UTC\"}")
        let scene = try await Scene([
            .events([.reasoning("time?"), .toolCallDelta(.init(index: 0, id: "call_1", name: "now")),
                     .toolCallDelta(.init(index: 0, arguments: "{\"tz\":\"UTC\"}")), .toolCall(call)], finishReason: "tool_calls"),
            .events([.text("It is noon.")], finishReason: "stop"),
        ], via: path)
        defer { scene.stop() }
        let p = scene.provider()
        let tool = ToolDefinition(name: "now", description: "the time", parametersJSON: "{\"type\":\"object\"}")
        let image = ImageData(mediaType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47])
        let ask = [ChatMessage(role: .user, parts: [.text("what time is it here?"), .image(image)])]
        let first = try await read(p, ChatRequest(model: "tiny", messages: ask, tools: [tool], toolChoice: .required))
        #expect(first.failure == nil)
        let whole = ToolCall(id: "call_1", name: "now", argumentsJSON: "{\"tz\":\"UTC\"}")
        #expect(first.events == [.reasoning("time?"), .toolCallDelta(ToolCallDelta(index: 0, id: "call_1", name: "now")),
                                 .toolCallDelta(ToolCallDelta(index: 0, arguments: "{\"tz\":\"UTC\"}")), .toolCall(whole),
                                 .done(finishReason: "tool_calls", usage: Usage(promptTokens: 5, completionTokens: 6))])
        let r1 = try #require(scene.host.requests.first)
        #expect(r1.version == 2 && r1.tools == [.init(name: "now", description: "the time", parametersJSON: "{\"type\":\"object\"}")])
        #expect(r1.options.toolChoice == .required && r1.messages == ask.map(WireBridge.wire) && r1.imageBytes == 4)

        // The caller ran the tool: its call and result are the next turn, on the Homebase again.
        let turn = ask + [ChatMessage(role: .assistant, content: "", toolCalls: [whole]),
                          ChatMessage(role: .tool, content: "12:00", toolCallID: "call_1")]
        let second = try await read(p, ChatRequest(model: "tiny", messages: turn, tools: [tool]))
        #expect(second.done && second.text == "It is noon.")
        let r2 = try #require(scene.host.requests.last)
        #expect(scene.host.requests.count == 2 && !r2.inline && r2.prefixHash == ConversationPlan(messages: turn.map(WireBridge.wire)).hashes[1])
        #expect(r2.messages.map(\.toolCalls) == [[call], []] && r2.messages.last?.toolCallID == "call_1")
    }

    @Test(arguments: ProviderPath.allCases) func aFiveMegabyteImageTravelsAsPartsAndArrivesByteForByte(via path: ProviderPath) async throws {
        let scene = try await Scene([.answer(["a cat"])], via: path)
        defer { scene.stop() }
        var rng = SplitMix64(seed: 23)
        let bytes = (0..<(5 << 20)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let ask = [ChatMessage(role: .user, parts: [.text("what is this?"), .image(ImageData(mediaType: "image/jpeg", bytes: bytes))])]
        let seen = try await read(scene.provider(), ChatRequest(model: "tiny", messages: ask))
        #expect(seen.done && seen.text == "a cat", "\(String(describing: seen.failure))")
        let r = try #require(scene.host.requests.first)
        #expect(r.messages.first?.parts.last == .image(mediaType: "image/jpeg", bytes: bytes))
    }

    @Test(arguments: ProviderPath.allCases) func anImageOverTheLimitIsRefusedBeforeAnythingIsSent(via path: ProviderPath) async throws {
        let scene = try await Scene([.answer(["never"])], via: path)
        defer { scene.stop() }
        let big = [UInt8](repeating: 1, count: Limits.maxImageBytes + 1)
        let ask = [ChatMessage(role: .user, parts: [.image(ImageData(mediaType: "image/png", bytes: big))])]
        let seen = try await read(scene.provider(), ChatRequest(model: "tiny", messages: ask))
        // Refused here, before sending: a local limit, never dressed as the host's `too_large`.
        guard case .tooLarge(let why)? = seen.brainFailure else {
            Issue.record("expected tooLarge, got \(String(describing: seen.failure))"); return
        }
        #expect(why.contains("10 MiB per image"))
        #expect(scene.host.seen.isEmpty)
    }

    @Test(arguments: ProviderPath.allCases) func aRequestThatCannotBeEncodedIsALocalFailureNotTheHostsCode(via path: ProviderPath) async throws {
        let scene = try await Scene([.answer(["never"])], via: path)
        defer { scene.stop() }
        // A model name over its u16 length prefix: the encoder refuses it, nothing is sent.
        let seen = try await read(scene.provider(), ChatRequest(model: String(repeating: "m", count: 70_000), messages: chat("hi")))
        guard case .notSealed(let why)? = seen.brainFailure else {
            Issue.record("expected notSealed, got \(String(describing: seen.failure))"); return
        }
        #expect(why.contains("model"), "\(why)")
        #expect(scene.host.seen.isEmpty)
    }

    @Test(arguments: ProviderPath.allCases) func notHereFailsAtOnceAsNotHereAndSendsNothingMore(via path: ProviderPath) async throws {
        let scene = try await Scene([.answer(["never"])], hostOnline: false, via: path)
        defer { scene.stop() }
        let seen = try await read(scene.provider(.own, .relaxed), ChatRequest(model: "tiny", messages: chat("hi")))
        #expect(seen.brainFailure == .notHere, "\(String(describing: seen.failure))")
        #expect(seen.events.isEmpty)
        #expect(scene.guest.stats.opened == 0)
    }

    @Test(arguments: ProviderPath.allCases) func anUnknownHostFailsWithoutSending(via path: ProviderPath) async throws {
        let scene = try await Scene([.answer(["x"])], via: path)
        defer { scene.stop() }
        let stranger = try identity("stranger").record.signingKey
        let p = HomebaseProvider(kind: .own, hostKey: stranger, courier: scene.guest, ledger: scene.ledger)
        let seen = try await read(p, ChatRequest(model: "tiny", messages: chat("hi")))
        guard case .notSent(let why)? = seen.brainFailure, why.contains("no device record") else {
            Issue.record("expected notSent, got \(String(describing: seen.failure))"); return
        }
        #expect(scene.host.seen.isEmpty)
    }
}
