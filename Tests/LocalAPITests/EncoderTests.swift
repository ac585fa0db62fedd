import Foundation
import Inference
import Testing
@testable import LocalAPI

/// The answer encoders and request readers, without sockets.
@Suite struct EncoderTests {
    func sseObjects(_ bytes: [UInt8]) -> [Any] {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { e -> Any in
            let data = String(e.dropFirst(6))
            return data == "[DONE]" ? "[DONE]" : try! JSONSerialization.jsonObject(with: Data(data.utf8))
        }
    }

    @Test func openAIChunksRoleFirstToolIndexesAndTerminator() {
        var enc = OpenAIAnswerEncoder(model: "m", includeUsage: false, homebase: ["brain": "on-device"])
        var bytes = enc.stream(.text("Hi"))
        bytes += enc.stream(.toolCall(ToolCall(id: "a", name: "f", argumentsJSON: "{}")))
        bytes += enc.stream(.toolCall(ToolCall(id: "b", name: "g", argumentsJSON: "{}")))
        bytes += enc.stream(.done(finishReason: "tool_calls", usage: nil))
        let o = sseObjects(bytes)
        #expect(o.count == 5)
        let first = ((o[0] as! [String: Any])["choices"] as! [[String: Any]])[0]["delta"] as! [String: Any]
        #expect(first["role"] as? String == "assistant" && first["content"] as? String == "Hi")
        let second = ((o[2] as! [String: Any])["choices"] as! [[String: Any]])[0]["delta"] as! [String: Any]
        #expect(second["role"] == nil)
        #expect((second["tool_calls"] as! [[String: Any]])[0]["index"] as? Int == 1)
        let last = o[3] as! [String: Any]
        #expect((last["choices"] as! [[String: Any]])[0]["finish_reason"] as? String == "tool_calls")
        #expect(last["homebase"] as? [String: String] == ["brain": "on-device"])
        #expect(o[4] as? String == "[DONE]")
        let error = String(decoding: enc.streamError("boom"), as: UTF8.self)
        #expect(error.hasPrefix("data: {") && error.contains("boom") && error.hasSuffix("\n\n"))
    }

    @Test func ollamaLinesEndWithDoneAndHomebase() throws {
        let enc = OllamaAnswerEncoder(model: "m", homebase: ["brain": "openai"])
        let text = try JSONSerialization.jsonObject(with: Data(enc.stream(.text("Hi")).dropLast())) as! [String: Any]
        #expect(text["done"] as? Bool == false)
        #expect((text["message"] as? [String: Any])?["content"] as? String == "Hi")
        let done = enc.stream(.done(finishReason: "length", usage: Usage(promptTokens: 2, completionTokens: 5)))
        #expect(done.last == 10)
        let d = try JSONSerialization.jsonObject(with: Data(done.dropLast())) as! [String: Any]
        #expect(d["done"] as? Bool == true && d["done_reason"] as? String == "length" && d["eval_count"] as? Int == 5)
        #expect(d["homebase"] as? [String: String] == ["brain": "openai"])
    }

    @Test func openAIRequestReaderKeepsToolsAndToolTurns() throws {
        let body = #"""
            {"model":"gpt","stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":9,
             "messages":[{"role":"developer","content":"sys"},
                         {"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},{"type":"text","text":"b"}]},
                         {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]},
                         {"role":"tool","tool_call_id":"c1","content":"42"}],
             "tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}
            """#
        let r = try OpenAIRequestReader.read(Array(body.utf8))
        #expect(r.stream && r.includeUsage)
        #expect(r.chat.maxTokens == 9)
        #expect(r.chat.messages.map(\.role) == [.system, .user, .assistant, .tool])
        #expect(r.chat.messages[1].content == "ab")
        #expect(r.chat.messages[1].images == [ImageData(mediaType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])])
        #expect(r.chat.messages[2].toolCalls == [ToolCall(id: "c1", name: "f", argumentsJSON: #"{"x":1}"#)])
        #expect(r.chat.messages[3].toolCallID == "c1")
        #expect(r.chat.tools.first?.parametersJSON == #"{"type":"object"}"#)
        #expect(throws: LocalAPIError.self) { try OpenAIRequestReader.read(Array(#"{"messages":[{"role":"wizard","content":"x"}]}"#.utf8)) }
    }

    @Test func ollamaRequestReaderDefaultsToStreamingAndReadsOptions() throws {
        let body = #"{"model":"q","messages":[{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"x":1}}}]}],"options":{"temperature":0.5,"num_predict":12}}"#
        let r = try OllamaRequestReader.read(Array(body.utf8))
        #expect(r.stream)
        #expect(r.chat.temperature == 0.5 && r.chat.maxTokens == 12)
        #expect(r.chat.messages[0].toolCalls.first?.argumentsJSON == #"{"x":1}"#)
        #expect(try !OllamaRequestReader.read(Array(#"{"model":"q","stream":false,"messages":[]}"#.utf8)).stream)
    }

    /// OpenAI's streamed shape: the first delta of a call has index, id, type and name; later ones
    /// only argument pieces; the whole call that follows the deltas is not written again.
    /// #23: a call is written once whole, in one delta (id, type, name, all its arguments); its
    /// deltas write nothing, so a failover can never leave half a call on the client.
    @Test func openAIWritesEachCallWholeInOneDelta() {
        var enc = OpenAIAnswerEncoder(model: "m", includeUsage: false, homebase: [:])
        var bytes = enc.stream(.reasoning("hm"))
        #expect(enc.stream(.toolCallDelta(ToolCallDelta(index: 0, id: "call_x", name: "get_time", arguments: ""))).isEmpty)
        #expect(enc.stream(.toolCallDelta(ToolCallDelta(index: 0, arguments: #"{"tz":"#))).isEmpty)
        bytes += enc.stream(.toolCall(ToolCall(id: "call_x", name: "get_time", argumentsJSON: #"{"tz":"UTC"}"#)))
        bytes += enc.stream(.toolCall(ToolCall(id: "call_y", name: "get_date", argumentsJSON: "{}")))
        bytes += enc.stream(.done(finishReason: "tool_calls", usage: nil))
        let deltas = sseObjects(bytes).compactMap { ($0 as? [String: Any])?["choices"] as? [[String: Any]] }.map { $0[0]["delta"] as! [String: Any] }
        #expect(deltas[0]["reasoning_content"] as? String == "hm")
        let calls = deltas.compactMap { ($0["tool_calls"] as? [[String: Any]])?.first }
        #expect(calls.count == 2)
        #expect(calls[0]["index"] as? Int == 0 && calls[0]["id"] as? String == "call_x" && calls[0]["type"] as? String == "function")
        #expect(calls[0]["function"] as? [String: String] == ["name": "get_time", "arguments": #"{"tz":"UTC"}"#])
        #expect(calls[1]["index"] as? Int == 1 && calls[1]["id"] as? String == "call_y")
    }

    /// Logprobs in OpenAI's shapes: `choices[0].logprobs.content` streamed, `choices[0].logprobs` whole.
    @Test func openAIWritesLogprobs() throws {
        let lp = TokenLogprob(token: "Hi", logprob: -0.5, bytes: [72, 105], top: [.init(token: "Hi", logprob: -0.5), .init(token: "Ho", logprob: -2)])
        var enc = OpenAIAnswerEncoder(model: "m", includeUsage: false, homebase: [:])
        let bytes = enc.stream(.text("Hi")) + enc.stream(.logprobs([lp]))
        let choices = sseObjects(bytes).compactMap { ($0 as? [String: Any])?["choices"] as? [[String: Any]] }.map { $0[0] }
        let content = try #require((choices[1]["logprobs"] as? [String: Any])?["content"] as? [[String: Any]])
        #expect(content.count == 1 && content[0]["token"] as? String == "Hi" && content[0]["logprob"] as? Double == -0.5)
        #expect(content[0]["bytes"] as? [Int] == [72, 105])
        #expect((content[0]["top_logprobs"] as? [[String: Any]])?.map { $0["token"] as? String } == ["Hi", "Ho"])
        #expect((content[0]["top_logprobs"] as? [[String: Any]])?[0]["bytes"] is NSNull)
        var whole = OpenAIAnswerEncoder(model: "m", includeUsage: false, homebase: [:])
        for e: ChatEvent in [.text("Hi"), .logprobs([lp]), .text("!"), .logprobs([TokenLogprob(token: "!", logprob: 0)])] { whole.collect(e) }
        let o = try JSONSerialization.jsonObject(with: Data(whole.whole(finishReason: "stop", usage: nil))) as! [String: Any]
        let all = try #require(((o["choices"] as? [[String: Any]])?[0]["logprobs"] as? [String: Any])?["content"] as? [[String: Any]])
        #expect(all.map { $0["token"] as? String } == ["Hi", "!"])
    }

    /// Ollama's shape (api/types.go `Logprob`): top-level `logprobs`, each line's and all in the whole answer.
    @Test func ollamaWritesLogprobs() throws {
        let lp = TokenLogprob(token: "Hi", logprob: -0.5, bytes: [72, 105], top: [.init(token: "Ho", logprob: -2)])
        var enc = OllamaAnswerEncoder(model: "m", homebase: [:])
        let line = try JSONSerialization.jsonObject(with: Data(enc.stream(.logprobs([lp])).dropLast())) as! [String: Any]
        let entries = try #require(line["logprobs"] as? [[String: Any]])
        #expect(entries[0]["token"] as? String == "Hi" && entries[0]["logprob"] as? Double == -0.5 && entries[0]["bytes"] as? [Int] == [72, 105])
        #expect((entries[0]["top_logprobs"] as? [[String: Any]])?.first?["token"] as? String == "Ho")
        #expect(line["done"] as? Bool == false)
        for e: ChatEvent in [.text("Hi"), .logprobs([lp])] { enc.collect(e) }
        let o = try JSONSerialization.jsonObject(with: Data(enc.whole(finishReason: "stop", usage: nil))) as! [String: Any]
        #expect((o["logprobs"] as? [[String: Any]])?.count == 1)
    }

    /// `/api/generate` writes the logprobs it was asked for as `/api/chat` does (they were dropped).
    @Test func ollamaGenerateWritesLogprobs() throws {
        let lp = TokenLogprob(token: "Hi", logprob: -0.5, bytes: nil, top: [])
        var enc = OllamaGenerateEncoder(model: "m", homebase: [:])
        let line = try JSONSerialization.jsonObject(with: Data(enc.stream(.logprobs([lp])).dropLast())) as! [String: Any]
        #expect((line["logprobs"] as? [[String: Any]])?.first?["token"] as? String == "Hi")
        for e: ChatEvent in [.text("Hi"), .logprobs([lp])] { enc.collect(e) }
        let o = try JSONSerialization.jsonObject(with: Data(enc.whole(finishReason: "stop", usage: nil))) as! [String: Any]
        #expect((o["logprobs"] as? [[String: Any]])?.first?["logprob"] as? Double == -0.5)
        #expect(o["response"] as? String == "Hi")
    }

    @Test func openAIWholeAnswerHasTheWholeCallsAndReasoning() throws {
        var enc = OpenAIAnswerEncoder(model: "m", includeUsage: false, homebase: [:])
        for e: ChatEvent in [.reasoning("hm"), .toolCallDelta(ToolCallDelta(index: 0, id: "c", name: "f")),
                             .toolCall(ToolCall(id: "c", name: "f", argumentsJSON: #"{"a":1}"#))] { enc.collect(e) }
        let o = try JSONSerialization.jsonObject(with: Data(enc.whole(finishReason: "tool_calls", usage: nil))) as! [String: Any]
        let message = (o["choices"] as! [[String: Any]])[0]["message"] as! [String: Any]
        #expect(message["reasoning_content"] as? String == "hm")
        #expect(message["content"] is NSNull)
        let call = (message["tool_calls"] as! [[String: Any]])[0]
        #expect(call["id"] as? String == "c" && (call["function"] as? [String: String]) == ["name": "f", "arguments": #"{"a":1}"#])
    }

    /// Ollama writes whole calls (arguments as an object) and `thinking`, as Ollama itself does.
    @Test func ollamaToolCallsAndThinking() throws {
        let enc = OllamaAnswerEncoder(model: "m", homebase: [:])
        #expect(enc.stream(.toolCallDelta(ToolCallDelta(index: 0, id: "c", name: "f"))).isEmpty)
        let line = try JSONSerialization.jsonObject(with: Data(enc.stream(.toolCall(ToolCall(id: "c", name: "f", argumentsJSON: #"{"a":1}"#))).dropLast())) as! [String: Any]
        let call = ((line["message"] as! [String: Any])["tool_calls"] as! [[String: Any]])[0]["function"] as! [String: Any]
        #expect(call["name"] as? String == "f" && (call["arguments"] as? [String: Int]) == ["a": 1])
        let think = try JSONSerialization.jsonObject(with: Data(enc.stream(.reasoning("hm")).dropLast())) as! [String: Any]
        #expect((think["message"] as? [String: Any])?["thinking"] as? String == "hm")
    }
}
