import Foundation
import Testing
@testable import Inference

@Suite struct OpenAIRequestBodyTests {
    static func json(_ r: ChatRequest) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(OpenAIRequestBody.encode(r))) as? [String: Any])
    }

    @Test func streamingFieldsAndContinuation() throws {
        let r = ChatRequest(model: "m", messages: [ChatMessage(role: .system, content: "be brief"),
                                                   ChatMessage(role: .user, content: "hi")],
                            maxTokens: 16, temperature: 0.5, continuation: "Hello, wor")
        let j = try Self.json(r)
        #expect(j["model"] as? String == "m")
        #expect(j["stream"] as? Bool == true)
        #expect((j["stream_options"] as? [String: Any])?["include_usage"] as? Bool == true)
        #expect(j["max_tokens"] as? Int == 16)
        #expect(j["temperature"] as? Double == 0.5)
        #expect(j["tools"] == nil)
        let messages = try #require(j["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["system", "user", "assistant"])
        #expect(messages.last?["content"] as? String == "Hello, wor")
    }

    @Test func toolsAndToolTurns() throws {
        let call = ToolCall(id: "call_1", name: "get_time", argumentsJSON: "{}")
        let r = ChatRequest(model: "m", messages: [
            ChatMessage(role: .user, content: "time?"),
            ChatMessage(role: .assistant, content: "", toolCalls: [call]),
            ChatMessage(role: .tool, content: "12:00", toolCallID: "call_1"),
        ], tools: [ToolDefinition(name: "get_time", description: "now", parametersJSON: #"{"type":"object","properties":{}}"#)])
        let j = try Self.json(r)
        let tool = try #require((j["tools"] as? [[String: Any]])?.first)
        #expect(tool["type"] as? String == "function")
        let fn = try #require(tool["function"] as? [String: Any])
        #expect(fn["name"] as? String == "get_time")
        #expect((fn["parameters"] as? [String: Any])?["type"] as? String == "object")
        let messages = try #require(j["messages"] as? [[String: Any]])
        let sent = try #require((messages[1]["tool_calls"] as? [[String: Any]])?.first)
        #expect(sent["id"] as? String == "call_1")
        #expect((sent["function"] as? [String: Any])?["arguments"] as? String == "{}")
        #expect(messages[2]["tool_call_id"] as? String == "call_1")
    }

    @Test func toolSchemaMustBeAJSONObject() {
        let r = ChatRequest(model: "m", messages: [], tools: [ToolDefinition(name: "t", description: "", parametersJSON: "[1")])
        #expect(throws: InferenceError.malformed("the parameters of tool t are not a JSON object")) {
            _ = try OpenAIRequestBody.encode(r)
        }
    }

    @Test func baseURLSpellings() {
        #expect(EngineURL.apiRoot("http://h:1") == "http://h:1/v1")
        #expect(EngineURL.apiRoot("http://h:1/v1/") == "http://h:1/v1")
        #expect(EngineURL.apiRoot("https://api.example.com/openai/v1") == "https://api.example.com/openai/v1")
        #expect(EngineURL.serverRoot("http://h:1/v1") == "http://h:1")
        #expect(EngineURL.serverRoot("http://h:1//") == "http://h:1")
        #expect(EngineURL.redacted("https://user:secret@h:1/v1") == "https://h:1/v1")
        #expect(EngineURL.redacted("http://h:1/a@b") == "http://h:1/a@b")
    }

    @Test func errorBodyMessages() {
        #expect(HTTPErrorMessage.short(from: Array(#"{"error":{"message":"bad key"}}"#.utf8), status: 401) == "bad key")
        #expect(HTTPErrorMessage.short(from: Array(#"{"error":"model 'x' not found"}"#.utf8), status: 404) == "model 'x' not found")
        #expect(HTTPErrorMessage.short(from: Array(#"{"detail":"Not Found"}"#.utf8), status: 404) == "Not Found")
        #expect(HTTPErrorMessage.short(from: Array("<html>\nboom".utf8), status: 502) == "<html>")
        #expect(HTTPErrorMessage.short(from: [], status: 503) == "no error message (HTTP 503)")
    }
}
