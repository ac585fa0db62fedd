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

    /// Every option of the vocabulary, in the dialect llama-server, vLLM and Ollama's `/v1` read.
    @Test func everyOptionIsWritten() throws {
        var o = GenerationOptions()
        o.stop = ["\n\n", "END"]; o.topP = 0.9; o.topK = 40; o.minP = 0.05; o.seed = 42
        o.presencePenalty = 0.5; o.frequencyPenalty = 0.25; o.repeatPenalty = 1.1
        o.responseFormat = .jsonSchema(name: "answer", schemaJSON: #"{"type":"object"}"#, strict: true)
        o.logprobs = true; o.topLogprobs = 3
        o.extra = ["chat_template_kwargs": #"{"enable_thinking":false}"#, "reasoning_effort": #""low""#,
                   "model": #""not-this""#]
        let tool = ToolDefinition(name: "f", description: "", parametersJSON: #"{"type":"object"}"#)
        let j = try Self.json(ChatRequest(model: "m", messages: [ChatMessage(role: .user, content: "hi")],
                                          tools: [tool], toolChoice: .required, options: o))
        #expect(j["stop"] as? [String] == ["\n\n", "END"])
        #expect(j["top_p"] as? Double == 0.9)
        #expect(j["top_k"] as? Int == 40)
        #expect(j["min_p"] as? Double == 0.05)
        #expect(j["seed"] as? Int == 42)
        #expect(j["presence_penalty"] as? Double == 0.5)
        #expect(j["frequency_penalty"] as? Double == 0.25)
        #expect(j["repeat_penalty"] as? Double == 1.1)
        #expect(j["logprobs"] as? Bool == true)
        #expect(j["top_logprobs"] as? Int == 3)
        #expect(j["tool_choice"] as? String == "required")
        let format = try #require(j["response_format"] as? [String: Any])
        #expect(format["type"] as? String == "json_schema")
        let schema = try #require(format["json_schema"] as? [String: Any])
        #expect(schema["name"] as? String == "answer")
        #expect(schema["strict"] as? Bool == true)
        #expect((schema["schema"] as? [String: Any])?["type"] as? String == "object")
        #expect((j["chat_template_kwargs"] as? [String: Any])?["enable_thinking"] as? Bool == false)
        #expect(j["reasoning_effort"] as? String == "low")
        #expect(j["model"] as? String == "m", "an extra key never replaces one written from the request")
        #expect(j["num_ctx"] == nil)
    }

    /// A named tool is forced the way llama-server reads: "required" over that tool alone (it
    /// ignores an object `tool_choice`, leaving the call unforced).
    @Test func aNamedToolIsRequiredOverThatToolAlone() throws {
        let f = ToolDefinition(name: "f", description: "", parametersJSON: #"{"type":"object"}"#)
        let g = ToolDefinition(name: "g", description: "", parametersJSON: #"{"type":"object"}"#)
        let j = try Self.json(ChatRequest(model: "m", messages: [ChatMessage(role: .user, content: "hi")],
                                          tools: [f, g], toolChoice: .function("g")))
        #expect(j["tool_choice"] as? String == "required")
        let tools = try #require(j["tools"] as? [[String: Any]])
        #expect(tools.compactMap { ($0["function"] as? [String: Any])?["name"] as? String } == ["g"])
    }

    /// Nothing the client did not send: no default temperature, no options, no tool_choice.
    @Test func nothingUnsetIsWritten() throws {
        let j = try Self.json(ChatRequest(model: "m", messages: [ChatMessage(role: .user, content: "hi")]))
        #expect(Set(j.keys) == ["model", "stream", "stream_options", "messages"])
    }

    @Test(arguments: [(ToolChoice.auto, #""auto""#), (.none, #""none""#), (.required, #""required""#),
                      (.function("get_time"), #"{"function":{"name":"get_time"},"type":"function"}"#)])
    func toolChoiceSpellings(_ choice: ToolChoice, _ json: String) throws {
        let v = OpenAIRequestBody.toolChoice(choice)
        let d = try JSONSerialization.data(withJSONObject: v, options: [.fragmentsAllowed, .sortedKeys])
        #expect(String(decoding: d, as: UTF8.self) == json)
    }

    @Test func jsonObjectFormat() throws {
        var o = GenerationOptions()
        o.responseFormat = .jsonObject
        let j = try Self.json(ChatRequest(model: "m", messages: [], options: o))
        #expect((j["response_format"] as? [String: Any])?["type"] as? String == "json_object")
    }

    /// A message with images is sent as content parts, in the client's order, images as data URLs.
    @Test func imagesAsContentParts() throws {
        let png = ImageData(mediaType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 0, 255])
        let m = ChatMessage(role: .user, parts: [.text("what is "), .image(png), .text("this?")])
        let j = try Self.json(ChatRequest(model: "m", messages: [ChatMessage(role: .system, content: "s"), m]))
        let messages = try #require(j["messages"] as? [[String: Any]])
        #expect(messages[0]["content"] as? String == "s")
        let parts = try #require(messages[1]["content"] as? [[String: Any]])
        #expect(parts.map { $0["type"] as? String } == ["text", "image_url", "text"])
        #expect(parts[0]["text"] as? String == "what is ")
        let url = try #require((parts[1]["image_url"] as? [String: Any])?["url"] as? String)
        #expect(url == "data:image/png;base64," + Data(png.bytes).base64EncodedString())
    }

    @Test func extraThatIsNotJSONIsRefused() {
        var o = GenerationOptions()
        o.extra = ["mirostat": "{oops"]
        #expect(throws: InferenceError.malformed("option mirostat is not JSON")) {
            _ = try OpenAIRequestBody.encode(ChatRequest(model: "m", messages: [], options: o))
        }
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
