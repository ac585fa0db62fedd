import Foundation
import Synchronization
import Inference
import InferenceWire
import Sealing
import Signing
import Testing
import Wire
@testable import HomebaseAgent

/// The host's half of request v2: what admission hands the engine, the limits it counts, the
/// versions it refuses, the typed stream the pump makes, and replicas that keep everything.
struct RequestV2HostTests {
    let admission = AdmissionTests()

    func v2(_ messages: [AppMessage.ChatMessage], options: AppMessage.RequestOptions = .init(),
            tools: [AppMessage.ToolDefinition] = [], version: UInt8 = 2) -> AppMessage.Request {
        AppMessage.Request(requestID: .random(), model: "m", conversationID: .random(), prefixHash: .zero,
                           messages: messages, inline: true, tools: tools, options: options, version: version)
    }

    func decide(_ r: AppMessage.Request) -> Admission.Decision {
        var replica = ConversationMemory(capacity: 4), cache = ConversationMemory(capacity: 4)
        let view = AdmissionView(siblings: [admission.sibling.signingKey.publicKey], grants: [:],
                                 catalog: admission.catalog, nowMs: 1000)
        return Admission.decide(r, from: admission.sibling.signingKey.publicKey, view: view, replica: &replica, cache: &cache)
    }

    @Test func theEngineGetsTheWholeRequestAndNoTemperatureItWasNotSent() throws {
        var o = AppMessage.RequestOptions()
        o.generation.topP = 0.5; o.generation.seed = 3; o.generation.stop = ["X"]; o.toolChoice = .required; o.generation.extra = ["mirostat": "2"]
        let messages: [AppMessage.ChatMessage] = [
            .init(role: .user, parts: [.text("see"), .image(mediaType: "image/png", bytes: [1, 2, 3])]),
        ]
        let tools = [AppMessage.ToolDefinition(name: "look", description: "d", parametersJSON: "{}")]
        guard case .serve(let plan) = decide(v2(messages, options: o, tools: tools)) else { Issue.record("refused"); return }
        #expect(plan.chat.temperature == nil && plan.chat.maxTokens == nil)
        #expect(plan.chat.options.topP == 0.5 && plan.chat.options.seed == 3 && plan.chat.options.stop == ["X"])
        #expect(plan.chat.options.extra == ["mirostat": "2"] && plan.chat.toolChoice == .required)
        #expect(plan.chat.tools == [ToolDefinition(name: "look", description: "d", parametersJSON: "{}")])
        #expect(plan.chat.messages[0].images == [ImageData(mediaType: "image/png", bytes: [1, 2, 3])])
        #expect(plan.typed && plan.ignoredOptions.isEmpty)
        // An older guest's request (version 1) still runs, with the temperature it always sent.
        guard case .serve(let old) = decide(request("m", inline: true)) else { Issue.record("refused"); return }
        #expect(!old.typed && old.chat.temperature == 0)
    }

    @Test func imagesOverTheLimitAreRefusedNamingIt() {
        let big = [UInt8](repeating: 0, count: Limits.maxImageBytes + 1)
        guard case .refuse(let e) = decide(v2([.init(role: .user, parts: [.image(mediaType: "image/png", bytes: big)])])) else {
            Issue.record("served"); return
        }
        #expect(e.code == .tooLarge && e.message.contains("10 MiB per image"))
    }

    @Test func aLaterVersionIsUnsupportedAndAnUnknownCriticalOptionABadRequest() {
        guard case .refuse(let e) = decide(v2([], version: 3)) else { Issue.record("served"); return }
        #expect(e.code == .unsupported && e.message.contains("upgrade homebase"))
        var o = AppMessage.RequestOptions()
        o.unknown = [.init(key: 0x8099, value: [])]
        guard case .refuse(let c) = decide(v2([.init(role: .user, content: "hi")], options: o)) else { Issue.record("served"); return }
        #expect(c.code == .badRequest && c.message.contains("0x8099"))
        o.unknown = [.init(key: 0x0099, value: [1])]
        guard case .serve(let plan) = decide(v2([.init(role: .user, content: "hi")], options: o)) else { Issue.record("refused"); return }
        #expect(plan.ignoredOptions == [0x0099])
        // A context length is known but no OpenAI-compatible engine takes it per request: named too.
        o.generation.contextLength = 4096
        guard case .serve(let ctx) = decide(v2([.init(role: .user, content: "hi")], options: o)) else { Issue.record("refused"); return }
        #expect(ctx.ignoredOptions == [0x000A, 0x0099] && ctx.chat.options.contextLength == 4096)
    }

    func engine(_ events: [ChatEvent]) -> AsyncThrowingStream<ChatEvent, Error> {
        AsyncThrowingStream { c in
            for e in events { c.yield(e) }
            c.finish()
        }
    }

    @Test func thePumpForwardsReasoningAndToolCallsOnlyToATypedRequester() async {
        let call = ToolCall(id: "c", name: "look", argumentsJSON: "{}")
        let events: [ChatEvent] = [.reasoning("hm"), .text("a"), .toolCallDelta(ToolCallDelta(index: 0, id: "c", name: "look")),
                                   .toolCallDelta(ToolCallDelta(index: 0, arguments: "{}")), .toolCall(call),
                                   .done(finishReason: "tool_calls", usage: nil)]
        let noDelay = ChunkBatcher.Policy(maxDelay: .seconds(3_600), maxBytes: 1_000_000)
        let seen = LockedEvents()
        let typed = await StreamPump.run(engine(events), policy: noDelay, typed: true) { seen.add($0); return .sent }
        #expect(typed == .done(finishReason: "tool_calls", usage: nil, text: "a", toolCalls: [call]))
        // Merged where adjacent (the two argument pieces of call 0 are one record).
        #expect(seen.all.flatMap { $0 } == [.reasoning("hm"), .text("a"), .toolCallDelta(.init(index: 0, id: "c", name: "look", arguments: "{}")),
                                            .toolCall(.init(id: "c", name: "look", argumentsJSON: "{}"))])
        let old = LockedEvents()
        _ = await StreamPump.run(engine(events), policy: noDelay) { old.add($0); return .sent }
        #expect(old.all.flatMap { $0 } == [.text("a")])
    }

    @Test func theIgnoredOptionsGoFirstInTheTypedStream() async {
        let seen = LockedEvents()
        let policy = ChunkBatcher.Policy(maxDelay: .seconds(3_600), maxBytes: 1_000_000)
        _ = await StreamPump.run(engine([.text("hi"), .done(finishReason: "stop", usage: nil)]), policy: policy, typed: true,
                                 preamble: [.ignoredOptions([0x0099])], opening: nil) { events, heard in
            seen.add(events)
            heard(.sent)
        }
        #expect(seen.all.flatMap { $0 } == [.ignoredOptions([0x0099]), .text("hi")])
    }

    @Test func replicasFromBeforeReadAsTextAndRichOnesKeepEverything() throws {
        let files = HostFiles(dataDir: try temporaryDirectory("host"))
        _ = try files.initialize(name: "w", nowMs: nowMs())
        let store = try files.openStore()
        defer { store.close() }
        // A row as a Homebase before #23 wrote it.
        _ = try store.db.execute("INSERT INTO replicas(conversation_id, messages, used_ms) VALUES (?, ?, ?)",
                                 [UInt8(9)], "[{\"role\":2,\"content\":\"hi\"},{\"role\":3,\"content\":\"hello\"}]", Int64(1))
        #expect(try store.loadReplica([9]) == [.init(role: .user, content: "hi"), .init(role: .assistant, content: "hello")])
        let rich: [AppMessage.ChatMessage] = [
            .init(role: .user, parts: [.text("see"), .image(mediaType: "image/png", bytes: [1, 2, 3])]),
            .init(role: .assistant, parts: [], toolCalls: [.init(id: "c", name: "look", argumentsJSON: "{}")]),
            .init(role: .tool, parts: [.text("ok")], toolCallID: "c"),
            .init(role: .assistant, content: "done"),
        ]
        try store.saveReplica([8], rich, nowMs: 2, capacity: 4)
        #expect(try store.loadReplica([8]) == rich)
    }

    @Test func theHeldConversationHashesPartsLikeTheGuest() {
        let rich: [AppMessage.ChatMessage] = [.init(role: .user, parts: [.image(mediaType: "image/png", bytes: [1])])]
        var other = rich
        other[0].parts = [.image(mediaType: "image/png", bytes: [2])]
        #expect(HeldConversation(rich).hash == ConversationHashing.of(rich))
        #expect(HeldConversation(rich).hash != HeldConversation(other).hash)
    }
}

final class LockedEvents: Sendable {
    private let state = Mutex<[[ReplyEvent]]>([])
    func add(_ e: [ReplyEvent]) { state.withLock { $0.append(e) } }
    var all: [[ReplyEvent]] { state.withLock { $0 } }
}
