import Courier
import Inference
@testable import RelayRouting
import Sealing
import Testing
import Wire

@Suite("answers through the real relay")
struct AnswerTests {
    @Test func anAnswerStreamsAndTheLedgerThenSendsOnlyTheNewMessages() async throws {
        let scene = try await Scene([.answer(["Hel", "lo, ", "wörld"])])
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
        let plan = ConversationPlan(messages: second.map(AppMessage.ChatMessage.init))
        #expect(!r2.inline && r2.conversationID == r1.conversationID && r2.conversationID == plan.conversationID)
        #expect(r2.prefixHash == plan.hashes[1])
        #expect(r2.messages.map(\.content) == ["Hello, wörld", "and then?"])
        #expect(r2.continuation == "Well" && r2.maxTokens == 0 && r2.temperaturePerMille == 700)
        #expect(scene.host.cancels.isEmpty && scene.host.deltas.isEmpty)
        #expect(scene.ledger.heldPrefix(host: scene.host.record.signingKey, conversation: plan.conversationID) == plan.fullHash)
    }

    @Test func aJoinedHomebaseIsTheJoinedBrainAndAnswersToo() async throws {
        let scene = try await Scene([.answer(["ok"])])
        defer { scene.stop() }
        let p = scene.provider(.joined)
        #expect(p.brain == .joinedHomebase)
        let seen = try await read(p, ChatRequest(model: "tiny", messages: chat("hi")))
        #expect(seen.done && seen.text == "ok" && scene.host.requests.count == 1)
    }

    @Test func requestsThatCarryToolsAreNeverSent() async throws {
        let scene = try await Scene([.answer(["plain"])])
        defer { scene.stop() }
        let p = scene.provider()
        let tool = ToolDefinition(name: "now", description: "the time", parametersJSON: "{}")
        let offered = try await read(p, ChatRequest(model: "tiny", messages: chat("what time is it?"), tools: [tool]))
        guard case .modelUnavailable? = offered.inferenceError else {
            Issue.record("expected an ordinary failure, got \(String(describing: offered.failure))")
            return
        }
        var exchange = chat("what time is it?")
        exchange.append(ChatMessage(role: .assistant, content: "", toolCalls: [ToolCall(id: "1", name: "now", argumentsJSON: "{}")]))
        exchange.append(ChatMessage(role: .tool, content: "noon", toolCallID: "1"))
        let continued = try await read(p, ChatRequest(model: "tiny", messages: exchange))
        #expect(continued.inferenceError != nil && continued.events.isEmpty)
        // A plain request afterwards is the first thing the host ever receives.
        #expect(try await read(p, ChatRequest(model: "tiny", messages: chat("hello"))).done)
        #expect(scene.host.seen.count == 1 && scene.host.requests.first?.messages.map(\.content) == ["hello"])
    }

    @Test func notHereFailsAtOnceAsUnreachableAndSendsNothingMore() async throws {
        let scene = try await Scene([.answer(["never"])], hostOnline: false)
        defer { scene.stop() }
        let seen = try await read(scene.provider(.own, .relaxed), ChatRequest(model: "tiny", messages: chat("hi")))
        guard case .unreachable? = seen.inferenceError else {
            Issue.record("expected unreachable, got \(String(describing: seen.failure))")
            return
        }
        #expect(seen.events.isEmpty)
        #expect(scene.guest.stats.opened == 0)
    }

    @Test func anUnknownHostFailsWithoutSending() async throws {
        let scene = try await Scene([.answer(["x"])])
        defer { scene.stop() }
        let stranger = try identity("stranger").record.signingKey
        let p = HomebaseProvider(kind: .own, hostKey: stranger, courier: scene.guest, ledger: scene.ledger)
        let seen = try await read(p, ChatRequest(model: "tiny", messages: chat("hi")))
        guard case .unreachable? = seen.inferenceError else { Issue.record("expected unreachable"); return }
        #expect(scene.host.seen.isEmpty)
    }
}
