import Foundation
import Inference
import Testing
@testable import LocalAPI

/// Anthropic Messages: the request reader and the event sequence, without sockets.
@Suite struct AnthropicMessagesTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 1, 2, 3]

    @Test func readsSystemBlocksImagesToolUseAndToolResultsInOrder() throws {
        let image = Data(Self.png).base64EncodedString()
        let body = """
            {"model":"claude-x","max_tokens":300,"stream":true,"temperature":0.2,"top_p":0.9,"top_k":40,
             "stop_sequences":["END"],"metadata":{"user_id":"u"},
             "system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Use tools."}],
             "messages":[
               {"role":"user","content":[{"type":"text","text":"What is this?"},
                 {"type":"image","source":{"type":"base64","media_type":"image/png","data":"\(image)"}}]},
               {"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"Let me look."},
                 {"type":"tool_use","id":"toolu_1","name":"lookup","input":{"q":"png"}}]},
               {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a picture"},
                 {"type":"text","text":"Thanks"}]}],
             "tools":[{"name":"lookup","description":"Looks up","input_schema":{"type":"object","properties":{"q":{"type":"string"}}}}],
             "tool_choice":{"type":"tool","name":"lookup"}}
            """
        let r = try AnthropicMessagesReader.read(Array(body.utf8))
        #expect(r.stream)
        let c = r.chat
        #expect(c.model == "claude-x" && c.maxTokens == 300 && c.temperature == 0.2)
        #expect(c.options.topP == 0.9 && c.options.topK == 40 && c.options.stop == ["END"])
        #expect(c.messages.map(\.role) == [.system, .user, .assistant, .tool, .user])
        #expect(c.messages[0].content == "Be brief.\n\nUse tools.")
        #expect(c.messages[1].parts == [.text("What is this?"), .image(ImageData(mediaType: "image/png", bytes: Self.png))])
        #expect(c.messages[2].content == "Let me look.")
        #expect(c.messages[2].toolCalls == [ToolCall(id: "toolu_1", name: "lookup", argumentsJSON: #"{"q":"png"}"#)])
        #expect(c.messages[3].toolCallID == "toolu_1" && c.messages[3].content == "a picture")
        #expect(c.messages[4].content == "Thanks")
        #expect(c.tools.map(\.name) == ["lookup"])
        #expect(c.tools[0].parametersJSON.contains("\"q\""))
        #expect(c.toolChoice == .function("lookup"))
    }

    @Test func refusesWhatItCannotCarryByName() {
        func refusal(_ body: String) -> String? {
            do { _ = try AnthropicMessagesReader.read(Array(body.utf8)); return nil } catch { return error.description }
        }
        #expect(refusal(#"{"model":"m","messages":[]}"#)?.contains("max_tokens") == true)
        #expect(refusal(#"{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}]}"#)?
            .contains("not fetched") == true)
        #expect(refusal(#"{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"document","source":{}}]}]}"#)?
            .contains("\"document\"") == true)
        #expect(refusal(#"{"model":"m","max_tokens":5,"messages":[],"tools":[{"type":"web_search_20250305","name":"web_search"}]}"#)?
            .contains("server tool") == true)
        #expect(refusal(#"{"model":"m","max_tokens":5,"messages":[{"role":"system","content":"x"}]}"#)?.contains("role") == true)
        // count_tokens needs no max_tokens.
        #expect((try? AnthropicMessagesReader.read(Array(#"{"model":"m","messages":[]}"#.utf8), requireMaxTokens: false)) != nil)
    }

    @Test func toolChoiceTypes() throws {
        #expect(try AnthropicMessagesReader.toolChoice(["type": "auto"]) == .auto)
        #expect(try AnthropicMessagesReader.toolChoice(["type": "any"]) == .required)
        #expect(try AnthropicMessagesReader.toolChoice(["type": "none"]) == ToolChoice.none)
        #expect(try AnthropicMessagesReader.toolChoice(nil) == nil)
    }

    /// Anthropic's one-call-only is carried as OpenAI's parallel_tool_calls false; unset, nothing is.
    @Test func disableParallelToolUseIsParallelToolCallsFalse() throws {
        func extra(_ choice: String) throws -> [String: String] {
            let body = #"{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"#
                + #""tools":[{"name":"f","input_schema":{"type":"object"}}],"tool_choice":"# + choice + "}"
            return try AnthropicMessagesReader.read(Array(body.utf8)).chat.options.extra
        }
        #expect(try extra(#"{"type":"any","disable_parallel_tool_use":true}"#) == ["parallel_tool_calls": "false"])
        #expect(try extra(#"{"type":"any","disable_parallel_tool_use":false}"#).isEmpty)
        #expect(try extra(#"{"type":"auto"}"#).isEmpty)
    }

    @Test func streamsTheMessagesEventSequence() throws {
        var enc = AnthropicMessagesEncoder(model: "m", homebase: ["brain": "on-device"])
        var bytes = enc.stream(.reasoning("think"))
        bytes += enc.stream(.text("Hel"))
        bytes += enc.stream(.text("lo"))
        bytes += enc.stream(.toolCallDelta(ToolCallDelta(index: 0, id: "toolu_a", name: "f", arguments: "{\"x\"")))
        bytes += enc.stream(.toolCallDelta(ToolCallDelta(index: 0, arguments: ":1}")))
        bytes += enc.stream(.toolCall(ToolCall(id: "toolu_a", name: "f", argumentsJSON: #"{"x":1}"#)))
        bytes += enc.stream(.toolCall(ToolCall(id: "toolu_b", name: "g", argumentsJSON: "{}")))  // no pieces: whole
        bytes += enc.stream(.done(finishReason: "tool_calls", usage: Usage(promptTokens: 11, completionTokens: 4)))
        let e = namedEvents(bytes)
        #expect(e.map(\.name) == [
            "message_start", "ping",
            "content_block_start", "content_block_delta", "content_block_stop",
            "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
            "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
            "content_block_start", "content_block_delta", "content_block_stop",
            "message_delta", "message_stop",
        ])
        for ev in e { #expect(ev.data?["type"] as? String == ev.name) }
        let start = try #require(e[0].data?["message"] as? [String: Any])
        #expect(start["role"] as? String == "assistant" && (start["content"] as? [Any])?.isEmpty == true)
        #expect((e[2].data?["content_block"] as? [String: Any])?["type"] as? String == "thinking")
        #expect((e[3].data?["delta"] as? [String: Any])?["thinking"] as? String == "think")
        #expect((e[6].data?["delta"] as? [String: String]) == ["type": "text_delta", "text": "Hel"])
        #expect(e[5].data?["index"] as? Int == 1 && e[8].data?["index"] as? Int == 1)
        let tool = try #require(e[9].data?["content_block"] as? [String: Any])
        #expect(tool["type"] as? String == "tool_use" && tool["id"] as? String == "toolu_a" && tool["name"] as? String == "f")
        let pieces = [e[10], e[11]].compactMap { ($0.data?["delta"] as? [String: Any])?["partial_json"] as? String }
        #expect(pieces.joined() == #"{"x":1}"#)
        #expect((e[13].data?["content_block"] as? [String: Any])?["id"] as? String == "toolu_b")
        #expect(e[13].data?["index"] as? Int == 3)
        let delta = try #require(e[16].data)
        #expect((delta["delta"] as? [String: Any])?["stop_reason"] as? String == "tool_use")
        #expect((delta["usage"] as? [String: Int]) == ["input_tokens": 11, "output_tokens": 4])
        #expect(delta["homebase"] as? [String: String] == ["brain": "on-device"])
        let error = namedEvents(enc.streamError("boom"))
        #expect(error.first?.name == "error")
        #expect((error.first?.data?["error"] as? [String: String]) == ["type": "api_error", "message": "boom"])
    }

    @Test func keepAliveOpensWithMessageStartThenPings() {
        var enc = AnthropicMessagesEncoder(model: "m", homebase: [:])
        var bytes = enc.keepAlive() + enc.keepAlive()
        bytes += enc.stream(.text("x"))
        #expect(namedEvents(bytes).map(\.name) == ["message_start", "ping", "ping", "content_block_start", "content_block_delta"])
    }

    @Test func wholeMessageObject() throws {
        var enc = AnthropicMessagesEncoder(model: "m", homebase: ["brain": "homebase"])
        for ev: ChatEvent in [.text("Hi "), .text("there"), .toolCall(ToolCall(id: "t1", name: "f", argumentsJSON: #"{"a":"b"}"#))] {
            enc.collect(ev)
        }
        let o = object(enc.whole(finishReason: "length", usage: Usage(promptTokens: 3, completionTokens: 2)))
        #expect(o["type"] as? String == "message" && o["role"] as? String == "assistant" && o["model"] as? String == "m")
        #expect((o["id"] as? String)?.hasPrefix("msg_") == true)
        #expect(o["stop_reason"] as? String == "max_tokens")
        let content = try #require(o["content"] as? [[String: Any]])
        #expect(content.count == 2)
        #expect(content[0]["text"] as? String == "Hi there")
        #expect(content[1]["type"] as? String == "tool_use" && (content[1]["input"] as? [String: String]) == ["a": "b"])
        #expect((o["usage"] as? [String: Int]) == ["input_tokens": 3, "output_tokens": 2])
        #expect(o["homebase"] as? [String: String] == ["brain": "homebase"])
    }

    @Test func countTokensEstimateGrowsWithTheRequest() throws {
        let small = try AnthropicMessagesReader.read(Array(#"{"model":"m","messages":[{"role":"user","content":"hi"}]}"#.utf8),
                                                     requireMaxTokens: false)
        let long = String(repeating: "word ", count: 400)
        let big = try AnthropicMessagesReader.read(Array(#"{"model":"m","system":"\#(long)","messages":[{"role":"user","content":"hi"}]}"#.utf8),
                                                   requireMaxTokens: false)
        #expect(TokenEstimate.count(small.chat) == 1 + TokenEstimate.perMessage)
        #expect(TokenEstimate.count(big.chat) == (2000 + 2 + 3) / 4 + 2 * TokenEstimate.perMessage)
    }
}
