// The one bridge: every field of a chat request, and every reply event, survives the trip
// through the wire schema and its bytes unchanged.
import Inference
import Sealing
import Testing
import Wire
@testable import InferenceWire

struct BridgeRoundTripTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<200).map { UInt8($0 % 251) }

    static func everything(_ choice: ToolChoice?) -> ChatRequest {
        var g = GenerationOptions()
        g.stop = ["\n\n", "END"]; g.topP = 0.9; g.topK = 40; g.minP = 0.05; g.seed = 42
        g.presencePenalty = 0.5; g.frequencyPenalty = -0.25; g.repeatPenalty = 1.1
        g.responseFormat = .jsonSchema(name: "weather", schemaJSON: "{\"type\":\"object\"}", strict: true)
        g.contextLength = 8192; g.logprobs = true; g.topLogprobs = 5
        g.extra = ["mirostat": "2", "logit_bias": "{\"50256\":-100}"]
        return ChatRequest(
            model: "llava:7b",
            messages: [
                ChatMessage(role: .system, content: "Be brief."),
                ChatMessage(role: .user, parts: [.text("What is in "), .image(ImageData(mediaType: "image/png", bytes: png)),
                                                 .text(" and here?"), .image(ImageData(mediaType: "image/jpeg", bytes: [0xFF, 0xD8]))]),
                ChatMessage(role: .assistant, content: "", toolCalls: [
                    ToolCall(id: "call_1", name: "look", argumentsJSON: "{\"where\":\"left\"}"),
                    ToolCall(id: "call_2", name: "zoom", argumentsJSON: "{}"),
                ]),
                ChatMessage(role: .tool, content: "a cat", toolCallID: "call_1"),
                ChatMessage(role: .tool, content: "", toolCallID: "call_2"),
            ],
            tools: [ToolDefinition(name: "look", description: "Looks.", parametersJSON: "{\"type\":\"object\"}"),
                    ToolDefinition(name: "zoom", description: "", parametersJSON: "{}")],
            toolChoice: choice, maxTokens: 256, temperature: 0.25, options: g, continuation: "It is")
    }

    /// Through the bridge, the bytes and back, with the conversation inline.
    func trip(_ chat: ChatRequest) throws -> ChatRequest {
        let messages = chat.messages.map(WireBridge.wire)
        let wire = try WireBridge.request(chat, requestID: .zero, conversationID: .zero, prefixHash: .zero,
                                          messages: messages, inline: true)
        guard case .request(let back) = try AppMessage.decode(try AppMessage.request(wire).encode()) else {
            throw WireError.invalidValue(field: "type", value: 0)
        }
        return WireBridge.chatRequest(back, conversation: back.messages)
    }

    @Test(arguments: [nil, ToolChoice.auto, ToolChoice.none, .required, .function("zoom")])
    func everyFieldSurvives(_ choice: ToolChoice?) throws {
        let chat = Self.everything(choice)
        #expect(try trip(chat) == chat)
    }

    @Test func responseFormatsAndAbsentValuesSurvive() throws {
        for format in [ResponseFormat.text, .jsonObject, .jsonSchema(name: "", schemaJSON: "{}", strict: false)] {
            var chat = ChatRequest(model: "m", messages: [ChatMessage(role: .user, content: "hi")])
            chat.options.responseFormat = format
            #expect(try trip(chat) == chat)
        }
        // Nothing set stays nothing: no temperature, no limit (the engine's defaults apply).
        let bare = ChatRequest(model: "m", messages: [ChatMessage(role: .user, content: "hi")])
        let back = try trip(bare)
        #expect(back == bare)
        #expect(back.temperature == nil && back.maxTokens == nil)
    }

    @Test func maxTokensZeroIsNoLimitInsideTheBridge() throws {
        let chat = ChatRequest(model: "m", messages: [ChatMessage(role: .user, content: "hi")], maxTokens: 0)
        #expect(try trip(chat).maxTokens == nil)
    }

    @Test func aVersionOneRequestFromAnOlderGuestKeepsItsTemperature() throws {
        // What a guest before request-v2 sends: type 0x10, temperature 0.7 always.
        let v1 = AppMessage.Request(requestID: .zero, model: "m", conversationID: .zero, prefixHash: .zero,
                                    messages: [.init(role: .user, content: "hi")], inline: true, maxTokens: 32,
                                    temperaturePerMille: 700)
        guard case .request(let back) = try AppMessage.decode(try AppMessage.request(v1).encode()) else {
            Issue.record("type"); return
        }
        let chat = WireBridge.chatRequest(back, conversation: back.messages)
        #expect(chat.temperature == 0.7 && chat.maxTokens == 32 && chat.messages == [ChatMessage(role: .user, content: "hi")])
    }

    @Test func imagesOverTheLimitsAreRefusedBeforeSendingNamingTheLimit() throws {
        let big = [UInt8](repeating: 7, count: Limits.maxImageBytes + 1)
        let chat = ChatRequest(model: "m", messages: [
            ChatMessage(role: .user, parts: [.image(ImageData(mediaType: "image/png", bytes: big))]),
        ])
        #expect {
            try WireBridge.request(chat, requestID: .zero, conversationID: .zero, prefixHash: .zero,
                                   messages: chat.messages.map(WireBridge.wire), inline: true)
        } throws: { e in
            guard case BridgeError.tooLarge(let why) = e else { return false }
            return why.contains("10 MiB per image")
        }
        let nine = [UInt8](repeating: 7, count: 9 << 20)
        let two = ChatRequest(model: "m", messages: [
            ChatMessage(role: .user, parts: [.image(ImageData(mediaType: "image/png", bytes: nine)),
                                             .image(ImageData(mediaType: "image/png", bytes: nine))]),
        ])
        #expect(WireBridge.limitProblem(two.messages.map(WireBridge.wire))?.contains("16 MiB") == true)
    }

    @Test func replyEventsSurviveBothWays() throws {
        let events: [ChatEvent] = [
            .reasoning("thinking"), .text("Grüß 👋"),
            .toolCallDelta(ToolCallDelta(index: 0, id: "call_1", name: "look", arguments: "")),
            .toolCallDelta(ToolCallDelta(index: 0, arguments: "{\"a\":")), .toolCallDelta(ToolCallDelta(index: 1, arguments: "1}")),
            .toolCall(ToolCall(id: "call_1", name: "look", argumentsJSON: "{\"a\":1}")),
            .logprobs([TokenLogprob(token: "Gr", logprob: -0.5, bytes: [71, 114], top: [.init(token: "Gr", logprob: -0.5),
                                                                                       .init(token: "Hi", logprob: -1.25, bytes: [72, 105])]),
                       TokenLogprob(token: "ü", logprob: -3)]),
        ]
        let wire = events.compactMap(WireBridge.replyEvent)
        #expect(wire.count == events.count)
        var reader = ReplyEventReader()
        let back = try reader.append(try ReplyEvent.encode(wire)).compactMap(WireBridge.chatEvent)
        #expect(back == events)
        #expect(WireBridge.replyEvent(.done(finishReason: "stop", usage: nil)) == nil)
        // What would not encode is dropped on the way: a non-finite logprob, alternatives past 20.
        let odd = TokenLogprob(token: "x", logprob: -1, top: Array(repeating: .init(token: "y", logprob: -2), count: 25) + [.init(token: "z", logprob: .nan)])
        let sent = WireBridge.replyEvent(.logprobs([odd, TokenLogprob(token: "w", logprob: -.infinity)]))
        guard case .logprobs(let l)? = sent else { Issue.record("not a logprobs event"); return }
        #expect(l.count == 1 && l[0].top.count == 20)
        #expect(throws: Never.self) { try ReplyEvent.encode([sent!]) }
        let done = WireBridge.done(requestID: .zero, finishReason: "tool_calls", usage: Usage(promptTokens: 3, completionTokens: 4))
        #expect(WireBridge.done(done) == .done(finishReason: "tool_calls", usage: Usage(promptTokens: 3, completionTokens: 4)))
    }
}

struct ConversationHashingTests {
    @Test func plainTextKeepsTheVersionOneHash() {
        let m = AppMessage.ChatMessage(role: .user, content: "hi")
        #expect(ConversationHashing.extend(ConversationHash.empty, m)
                == ConversationHash.extend(ConversationHash.empty, role: 2, content: "hi"))
    }

    @Test func everyPartOfARichMessageIsHashed() {
        let base = AppMessage.ChatMessage(role: .user, parts: [.text("see"), .image(mediaType: "image/png", bytes: [1, 2, 3])])
        var otherImage = base
        otherImage.parts[1] = .image(mediaType: "image/png", bytes: [1, 2, 4])
        var otherType = base
        otherType.parts[1] = .image(mediaType: "image/jpeg", bytes: [1, 2, 3])
        let call = AppMessage.ChatMessage(role: .assistant, parts: [], toolCalls: [.init(id: "a", name: "f", argumentsJSON: "{}")])
        var otherArgs = call
        otherArgs.toolCalls[0].argumentsJSON = "{\"x\":1}"
        let result = AppMessage.ChatMessage(role: .tool, parts: [.text("ok")], toolCallID: "a")
        var otherID = result
        otherID.toolCallID = "b"
        let textOnly = AppMessage.ChatMessage(role: .user, content: "see")
        let hashes = [base, otherImage, otherType, call, otherArgs, result, otherID, textOnly]
            .map { ConversationHashing.extend(ConversationHash.empty, $0) }
        #expect(Set(hashes.map { $0.map { String($0) }.joined() }).count == hashes.count)
    }
}
