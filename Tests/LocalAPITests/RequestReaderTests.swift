import Foundation
import Inference
import Testing
@testable import LocalAPI

/// Both readers, walked with every field a client may send: each lands in the `ChatRequest`, is
/// consumed as plumbing, is carried in `options.extra`, or is refused by name. Nothing vanishes.
@Suite struct RequestReaderTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
    static var pngBase64: String { Data(png).base64EncodedString() }

    func openAI(_ json: String) throws(LocalAPIError) -> APIChatRequest { try OpenAIRequestReader.read(Array(json.utf8)) }
    func ollama(_ json: String) throws(LocalAPIError) -> APIChatRequest { try OllamaRequestReader.read(Array(json.utf8)) }

    @Test func openAIEveryField() throws {
        let body = """
            {"model":"gpt","stream":true,"stream_options":{"include_usage":true},"user":"u1","store":false,
             "metadata":{"k":"v"},"n":1,"parallel_tool_calls":true,"service_tier":"auto",
             "max_tokens":50,"temperature":0.2,"top_p":0.9,"top_k":40,"min_p":0.05,"seed":7,
             "presence_penalty":0.5,"frequency_penalty":0.25,"repeat_penalty":1.1,"stop":"END",
             "logprobs":true,"top_logprobs":2,
             "response_format":{"type":"json_schema","json_schema":{"name":"ans","schema":{"type":"object"},"strict":true}},
             "tool_choice":{"type":"function","function":{"name":"f"}},
             "tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object"}}}],
             "reasoning_effort":"low","logit_bias":{"50256":-100},"chat_template_kwargs":{"enable_thinking":false},
             "messages":[{"role":"system","content":"sys","name":"boss"},
                         {"role":"user","content":[{"type":"text","text":"see "},
                            {"type":"image_url","image_url":{"url":"data:image/png;base64,\(Self.pngBase64)","detail":"high"}}]},
                         {"role":"assistant","content":null,"reasoning_content":"hm","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
                         {"role":"tool","tool_call_id":"c1","content":"42"}]}
            """
        let r = try openAI(body)
        #expect(r.stream && r.includeUsage)
        var want = ChatRequest(model: "gpt", messages: [
            ChatMessage(role: .system, content: "sys"),
            ChatMessage(role: .user, parts: [.text("see "), .image(ImageData(mediaType: "image/png", bytes: Self.png))]),
            ChatMessage(role: .assistant, content: "", toolCalls: [ToolCall(id: "c1", name: "f", argumentsJSON: "{}")]),
            ChatMessage(role: .tool, content: "42", toolCallID: "c1"),
        ], tools: [ToolDefinition(name: "f", description: "d", parametersJSON: #"{"type":"object"}"#)],
           toolChoice: .function("f"), maxTokens: 50, temperature: 0.2)
        want.options.stop = ["END"]; want.options.topP = 0.9; want.options.topK = 40; want.options.minP = 0.05
        want.options.seed = 7; want.options.presencePenalty = 0.5; want.options.frequencyPenalty = 0.25
        want.options.repeatPenalty = 1.1; want.options.logprobs = true; want.options.topLogprobs = 2
        want.options.responseFormat = .jsonSchema(name: "ans", schemaJSON: #"{"type":"object"}"#, strict: true)
        want.options.extra = ["reasoning_effort": #""low""#, "logit_bias": #"{"50256":-100}"#, "parallel_tool_calls": "true",
                              "chat_template_kwargs": #"{"enable_thinking":false}"#]
        #expect(r.chat == want)
    }

    @Test func openAIStopListToolChoiceWordsAndFormats() throws {
        let r = try openAI(#"{"messages":[{"role":"user","content":"x"}],"stop":["a","b"],"tool_choice":"required","response_format":{"type":"json_object"}}"#)
        #expect(r.chat.options.stop == ["a", "b"])
        #expect(r.chat.toolChoice == .required)
        #expect(r.chat.options.responseFormat == .jsonObject)
        #expect(r.chat.temperature == nil, "no temperature sent, none invented")
        #expect(try openAI(#"{"messages":[{"role":"user","content":"x"}],"tool_choice":"none"}"#).chat.toolChoice == ToolChoice.none)
        #expect(try openAI(#"{"messages":[{"role":"user","content":"x"}],"tool_choice":"auto"}"#).chat.toolChoice == .auto)
    }

    @Test(arguments: [
        (#"{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}"#,
         "image URLs are not fetched: send the image inline as a data URL (data:image/png;base64,...)"),
        (#"{"type":"image_url","image_url":{"url":"data:text/plain;base64,aGk="}}"#,
         #"a data URL of type "text/plain" is not an image"#),
        (#"{"type":"input_audio","input_audio":{"data":"aGk=","format":"wav"}}"#,
         #"content parts of type "input_audio" are not supported (text and image_url are)"#),
    ])
    func openAIPartsThatCannotBeTakenAreRefused(_ part: String, _ message: String) {
        #expect(throws: LocalAPIError.badRequest(message)) {
            _ = try openAI(#"{"messages":[{"role":"user","content":[\#(part)]}]}"#)
        }
    }

    @Test func openAIBadValuesAreNamed() {
        #expect(throws: LocalAPIError.badRequest("n must be 1 (one answer per request)")) {
            _ = try openAI(#"{"n":2,"messages":[{"role":"user","content":"x"}]}"#)
        }
        #expect(throws: LocalAPIError.badRequest("top_p must be a number")) {
            _ = try openAI(#"{"top_p":"high","messages":[{"role":"user","content":"x"}]}"#)
        }
        #expect(throws: LocalAPIError.badRequest(#"unknown message field "weight""#)) {
            _ = try openAI(#"{"messages":[{"role":"user","content":"x","weight":2}]}"#)
        }
    }

    @Test func ollamaEveryField() throws {
        let body = """
            {"model":"q","stream":false,"keep_alive":"5m","think":false,
             "format":{"type":"object","properties":{"a":{"type":"string"}}},
             "options":{"temperature":0.3,"top_p":0.8,"top_k":30,"min_p":0.1,"seed":3,"stop":["\\n"],
                        "num_predict":64,"num_ctx":4096,"repeat_penalty":1.2,"presence_penalty":0.4,
                        "frequency_penalty":0.6,"num_thread":4,"mirostat":2},
             "tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],
             "messages":[{"role":"user","content":"look","images":["\(Self.pngBase64)"]},
                         {"role":"assistant","content":"","thinking":"hm","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},
                         {"role":"tool","content":"ok","tool_name":"f"}]}
            """
        let r = try ollama(body)
        #expect(!r.stream)
        var want = ChatRequest(model: "q", messages: [
            ChatMessage(role: .user, parts: [.text("look"), .image(ImageData(mediaType: "image/png", bytes: Self.png))]),
            ChatMessage(role: .assistant, content: "", toolCalls: [ToolCall(id: "call_0", name: "f", argumentsJSON: #"{"a":1}"#)]),
            ChatMessage(role: .tool, content: "ok", toolCallID: "call_0"),
        ], tools: [ToolDefinition(name: "f", description: "", parametersJSON: #"{"type":"object"}"#)],
           maxTokens: 64, temperature: 0.3)
        want.options.topP = 0.8; want.options.topK = 30; want.options.minP = 0.1; want.options.seed = 3
        want.options.stop = ["\n"]; want.options.contextLength = 4096; want.options.repeatPenalty = 1.2
        want.options.presencePenalty = 0.4; want.options.frequencyPenalty = 0.6
        want.options.responseFormat = .jsonSchema(name: "response", schemaJSON: #"{"properties":{"a":{"type":"string"}},"type":"object"}"#, strict: true)
        want.options.extra = ["mirostat": "2", "chat_template_kwargs": #"{"enable_thinking":false}"#]
        #expect(r.chat == want)
    }

    @Test func ollamaFormatJSONAndThinkLevel() throws {
        let r = try ollama(#"{"model":"q","format":"json","think":"high","messages":[{"role":"user","content":"x"}]}"#)
        #expect(r.chat.options.responseFormat == .jsonObject)
        #expect(r.chat.options.extra == ["reasoning_effort": #""high""#])
    }

    @Test func ollamaWhatCannotBeCarriedIsNamed() {
        #expect(throws: LocalAPIError.badRequest(#"option "num_gqa" is not supported"#)) {
            _ = try ollama(#"{"model":"q","options":{"num_gqa":8},"messages":[]}"#)
        }
        #expect(throws: LocalAPIError.badRequest(#"unknown field "raw""#)) {
            _ = try ollama(#"{"model":"q","raw":true,"messages":[]}"#)
        }
        #expect(throws: LocalAPIError.badRequest("an image is not PNG, JPEG, GIF or WebP")) {
            _ = try ollama(#"{"model":"q","messages":[{"role":"user","content":"x","images":["aGVsbG8="]}]}"#)
        }
    }

    @Test func dataURLsAndSniffedTypes() throws {
        #expect(try ContentReading.dataURL("data:image/jpeg;base64,/9j/AA==") == ImageData(mediaType: "image/jpeg", bytes: [0xFF, 0xD8, 0xFF, 0]))
        #expect(throws: LocalAPIError.badRequest("an image data URL must be base64")) { _ = try ContentReading.dataURL("data:image/png,abc") }
        #expect(ContentReading.mediaType(of: Array("GIF89a".utf8)) == "image/gif")
        #expect(ContentReading.mediaType(of: Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == "image/webp")
    }

    /// Ollama's tool results name no call: each answers the first open call of the turn before,
    /// by tool name when given, else in order.
    @Test func ollamaToolResultsArePairedWithTheirCalls() throws {
        let r = try ollama("""
            {"model":"q","messages":[{"role":"user","content":"x"},
             {"role":"assistant","content":"","tool_calls":[{"function":{"name":"a","arguments":{}}},{"id":"k","function":{"name":"b","arguments":{}}}]},
             {"role":"tool","content":"B","tool_name":"b"},{"role":"tool","content":"A"},{"role":"tool","content":"extra"}]}
            """)
        #expect(r.chat.messages.map(\.toolCallID) == [nil, nil, "k", "call_0", nil])
    }
}
