import Foundation
import Testing
@testable import Inference

/// The replay peer (peers/replay_peer.py): recorded cloud streams, split at awkward boundaries.
enum ReplayPeer {
    private static let shared: Result<PortedProcess, Error> = Result {
        try PortedProcess(try pythonPath(), [packageRoot.appendingPathComponent("Tests/InferenceTests/peers/replay_peer.py").path])
    }

    static func port() throws -> Int { try shared.get().port }

    /// Base URL of one scenario for one test: the provider appends `/v1/...`.
    static func url(_ id: String, _ provider: String, _ scenario: String) throws -> String {
        "http://127.0.0.1:\(try port())/t/\(id)/\(provider)/\(scenario)"
    }

    /// The requests the peer recorded for test `id`: path, lower-cased headers, JSON body.
    static func records(_ id: String) async throws -> [[String: Any]] {
        let data = try await get("http://127.0.0.1:\(try port())/t/\(id)/record")
        return (try JSONSerialization.jsonObject(with: Data(data)) as? [[String: Any]]) ?? []
    }
}

/// A recorded stream from peers/streams/.
func recordedStream(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: packageRoot.appendingPathComponent("Tests/InferenceTests/peers/streams/\(name).sse")))
}

/// The recorded Anthropic stream with tool use, as `ChatEvent`s.
let anthropicToolsEvents: [ChatEvent] = [
    .text("Okay, let me check"), .text(" the weather in Zürich — ☀️?"),
    .toolCallDelta(ToolCallDelta(index: 0, id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather")),
    .toolCallDelta(ToolCallDelta(index: 0, arguments: #"{"location":"#)),
    .toolCallDelta(ToolCallDelta(index: 0, arguments: #" "Zürich", "unit": "celsius"}"#)),
    .toolCall(ToolCall(id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather",
                       argumentsJSON: #"{"location": "Zürich", "unit": "celsius"}"#)),
    .done(finishReason: "tool_calls", usage: Usage(promptTokens: 472, completionTokens: 89)),
]

/// The recorded OpenAI stream with two tool calls and a usage chunk, as `ChatEvent`s.
let openAIToolsEvents: [ChatEvent] = [
    .text("Checking Zürich"), .text(" ☀️…"),
    .toolCallDelta(ToolCallDelta(index: 0, id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather")),
    .toolCallDelta(ToolCallDelta(index: 0, arguments: #"{"loc"#)),
    .toolCallDelta(ToolCallDelta(index: 1, id: "call_Q2kB7", name: "get_time", arguments: "{}")),
    .toolCallDelta(ToolCallDelta(index: 0, arguments: #"ation":"Zürich"}"#)),
    .toolCall(ToolCall(id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", name: "get_weather", argumentsJSON: #"{"location":"Zürich"}"#)),
    .toolCall(ToolCall(id: "call_Q2kB7", name: "get_time", argumentsJSON: "{}")),
    .done(finishReason: "tool_calls", usage: Usage(promptTokens: 80, completionTokens: 17)),
]

/// A request with a system prompt, a tool and a finished tool exchange.
let weatherRequest = ChatRequest(
    model: "m", messages: [
        ChatMessage(role: .system, content: "Be brief."),
        ChatMessage(role: .user, content: "Weather in Zürich?"),
        ChatMessage(role: .assistant, content: "", toolCalls: [ToolCall(id: "toolu_0", name: "get_weather", argumentsJSON: #"{"location":"Bern"}"#)]),
        ChatMessage(role: .tool, content: "12°C", toolCallID: "toolu_0"),
        ChatMessage(role: .user, content: "And Zürich?"),
    ],
    tools: [ToolDefinition(name: "get_weather", description: "Weather for a place",
                           parametersJSON: #"{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}"#)],
    maxTokens: 64)

/// Feeds `bytes` to the Anthropic decoder in the pieces given by `cuts` (offsets).
func decodeAnthropic(_ bytes: [UInt8], cuts: [Int]) throws -> (events: [ChatEvent], done: Bool) {
    var parser = SSEParser()
    var decoder = AnthropicStreamDecoder()
    var out: [ChatEvent] = []
    var start = 0
    for end in cuts + [bytes.count] where end >= start {
        for e in parser.parse(Array(bytes[start..<end])) { try decoder.handle(e, into: &out) }
        start = end
    }
    return (out, decoder.isDone)
}
