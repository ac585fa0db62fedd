import Foundation
import Inference
import Testing
@testable import LocalAPI

/// OpenAI Responses: the reader, the event sequence and the memory behind previous_response_id.
@Suite struct ResponsesTests {
    @Test func readsTextInputAndItems() throws {
        let text = try ResponsesReader.read(Array(#"{"model":"m","input":"Hi","instructions":"Be brief."}"#.utf8))
        #expect(text.input == [ChatMessage(role: .user, content: "Hi")])
        #expect(text.instructions == "Be brief." && text.store && !text.api.stream)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 9]).base64EncodedString()
        let body = """
            {"model":"m","stream":true,"store":false,"max_output_tokens":50,"temperature":0.3,"top_p":0.8,
             "previous_response_id":"resp_1","parallel_tool_calls":false,"reasoning":{"effort":"low"},
             "input":[{"role":"developer","content":"rules"},
                      {"type":"message","role":"user","content":[{"type":"input_text","text":"look"},
                        {"type":"input_image","image_url":"data:image/png;base64,\(png)","detail":"auto"}]},
                      {"type":"reasoning","id":"rs_1","summary":[]},
                      {"type":"function_call","call_id":"call_1","name":"f","arguments":"{\\"a\\":1}"},
                      {"type":"function_call","call_id":"call_2","name":"g","arguments":"{}"},
                      {"type":"function_call_output","call_id":"call_1","output":"one"},
                      {"type":"function_call_output","call_id":"call_2","output":"two"}],
             "tools":[{"type":"function","name":"f","description":"F","parameters":{"type":"object"},"strict":true}],
             "tool_choice":{"type":"function","name":"f"},
             "text":{"format":{"type":"json_schema","name":"out","schema":{"type":"object"},"strict":true}}}
            """
        let r = try ResponsesReader.read(Array(body.utf8))
        #expect(r.api.stream && !r.store && r.previousResponseID == "resp_1")
        let c = r.api.chat
        #expect(c.maxTokens == 50 && c.temperature == 0.3 && c.options.topP == 0.8)
        #expect(c.messages.map(\.role) == [.system, .user, .assistant, .tool, .tool])
        #expect(c.messages[1].images == [ImageData(mediaType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 9])])
        #expect(c.messages[2].toolCalls.map(\.id) == ["call_1", "call_2"])
        #expect(c.messages[2].toolCalls[0].argumentsJSON == #"{"a":1}"#)
        #expect(c.messages[3].toolCallID == "call_1" && c.messages[3].content == "one")
        #expect(c.tools == [ToolDefinition(name: "f", description: "F", parametersJSON: #"{"type":"object"}"#)])
        #expect(c.toolChoice == .function("f"))
        #expect(c.options.responseFormat == .jsonSchema(name: "out", schemaJSON: #"{"type":"object"}"#, strict: true))
    }

    @Test func refusesOtherToolsItemsAndURLImages() {
        func refusal(_ body: String) -> String? {
            do { _ = try ResponsesReader.read(Array(body.utf8)); return nil } catch { return error.description }
        }
        #expect(refusal(#"{"model":"m","input":[{"type":"item_reference","id":"x"}]}"#)?.contains("\"item_reference\"") == true)
        #expect(refusal(#"{"model":"m","input":[{"role":"user","content":[{"type":"input_image","image_url":"https://x/y.png"}]}]}"#)?
            .contains("not fetched") == true)
        #expect(refusal(#"{"model":"m"}"#)?.contains("input") == true)
    }

    /// Codex's tool array: functions, a freeform `apply_patch`, hosted tools it cannot run here.
    @Test func freeformToolsAreFunctionsOfOneStringAndHostedOnesAreNamedNotOffered() throws {
        let body = #"{"model":"m","input":[{"type":"custom_tool_call","call_id":"c0","name":"apply_patch","input":"*** Begin Patch"},"#
            + #"{"type":"custom_tool_call_output","call_id":"c0","output":"done"}],"#
            + #""tools":[{"type":"function","name":"shell","parameters":{"type":"object"}},{"type":"web_search"},"#
            + #"{"type":"custom","name":"apply_patch","description":"Edit files","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/s"}},"#
            + #"{"type":"namespace","name":"mcp"},{"type":"web_search"}]}"#
        let r = try ResponsesReader.read(Array(body.utf8))
        #expect(r.api.chat.tools.map(\.name) == ["shell", "apply_patch"])
        #expect(r.api.chat.tools[1].parametersJSON == ResponsesReader.customParameters)
        #expect(r.api.chat.tools[1].description.contains("start: /.+/s"))
        #expect(r.customTools == ["apply_patch"] && r.ignoredTools == ["web_search", "namespace"])
        #expect(r.api.chat.messages[0].toolCalls == [ToolCall(id: "c0", name: "apply_patch", argumentsJSON: #"{"input":"*** Begin Patch"}"#)])
        #expect(r.api.chat.messages[1].role == .tool && r.api.chat.messages[1].content == "done")

        var enc = ResponsesEncoder(request: r, conversation: r.input, memory: ResponseMemory(), homebase: ["brain": "b"])
        var bytes = enc.stream(.toolCallDelta(ToolCallDelta(index: 0, id: "c1", name: "apply_patch", arguments: "{\"input\":")))
        bytes += enc.stream(.toolCallDelta(ToolCallDelta(index: 0, arguments: "\"*** End\"}")))
        bytes += enc.stream(.toolCall(ToolCall(id: "c1", name: "apply_patch", argumentsJSON: #"{"input":"*** End"}"#)))
        bytes += enc.stream(.done(finishReason: "tool_calls", usage: nil))
        let e = namedEvents(bytes)
        #expect(e.map(\.name) == ["response.created", "response.in_progress", "response.output_item.added",
                                   "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done",
                                   "response.output_item.done", "response.completed"])
        let item = try #require(e[5].data?["item"] as? [String: Any])
        #expect(item["type"] as? String == "custom_tool_call" && item["input"] as? String == "*** End" && item["call_id"] as? String == "c1")
        let done = try #require(e[6].data?["response"] as? [String: Any])
        #expect((done["homebase"] as? [String: String]) == ["brain": "b", "ignored_tools": "web_search,namespace"])
    }

    @Test func streamsTheResponsesEventSequenceAndKeepsTheConversation() throws {
        let memory = ResponseMemory()
        let r = try ResponsesReader.read(Array(#"{"model":"m","input":"Hi","stream":true,"tools":[{"type":"function","name":"f"}]}"#.utf8))
        var enc = ResponsesEncoder(request: r, conversation: r.input, memory: memory, homebase: ["brain": "on-device"])
        var bytes = enc.stream(.text("Hel"))
        bytes += enc.stream(.text("lo"))
        bytes += enc.stream(.toolCallDelta(ToolCallDelta(index: 0, id: "call_9", name: "f", arguments: "{\"a\"")))
        bytes += enc.stream(.toolCallDelta(ToolCallDelta(index: 0, arguments: ":2}")))
        bytes += enc.stream(.toolCall(ToolCall(id: "call_9", name: "f", argumentsJSON: #"{"a":2}"#)))
        bytes += enc.stream(.done(finishReason: "tool_calls", usage: Usage(promptTokens: 5, completionTokens: 6)))
        let e = namedEvents(bytes)
        #expect(e.map(\.name) == [
            "response.created", "response.in_progress",
            "response.output_item.added", "response.content_part.added",
            "response.output_text.delta", "response.output_text.delta", "response.output_text.done",
            "response.content_part.done", "response.output_item.done",
            "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
            "response.function_call_arguments.done", "response.output_item.done",
            "response.completed",
        ])
        #expect(e.enumerated().allSatisfy { $0.element.data?["sequence_number"] as? Int == $0.offset })
        #expect(((e[0].data?["response"] as? [String: Any])?["status"] as? String) == "in_progress")
        #expect(e[4].data?["delta"] as? String == "Hel")
        #expect(e[6].data?["text"] as? String == "Hello")
        let call = try #require(e[9].data?["item"] as? [String: Any])
        #expect(call["type"] as? String == "function_call" && call["call_id"] as? String == "call_9" && call["name"] as? String == "f")
        #expect(e[9].data?["output_index"] as? Int == 1)
        #expect(e[12].data?["arguments"] as? String == #"{"a":2}"#)
        let done = try #require(e[14].data?["response"] as? [String: Any])
        #expect(done["status"] as? String == "completed")
        let output = try #require(done["output"] as? [[String: Any]])
        #expect(output.map { $0["type"] as? String } == ["message", "function_call"])
        #expect(((output[0]["content"] as? [[String: Any]])?.first?["text"] as? String) == "Hello")
        #expect(output[1]["arguments"] as? String == #"{"a":2}"#)
        #expect((done["usage"] as? [String: Any])?["total_tokens"] as? Int == 11)
        #expect(done["homebase"] as? [String: String] == ["brain": "on-device"])
        let id = try #require(done["id"] as? String)
        let kept = try #require(memory.conversation(id))
        #expect(kept.map(\.role) == [.user, .assistant])
        #expect(kept[1].content == "Hello" && kept[1].toolCalls.map(\.id) == ["call_9"])
        #expect(namedEvents(enc.streamError("boom")).first?.data?["message"] as? String == "boom")
    }

    @Test func wholeResponseObjectAndStoreFalseKeepsNothing() throws {
        let memory = ResponseMemory()
        let r = try ResponsesReader.read(Array(#"{"model":"m","input":"Hi","store":false,"instructions":"I"}"#.utf8))
        var enc = ResponsesEncoder(request: r, conversation: r.input, memory: memory, homebase: ["brain": "homebase"])
        enc.collect(.reasoning("hmm"))
        enc.collect(.text("Yes"))
        let o = object(enc.whole(finishReason: "length", usage: nil))
        #expect(o["object"] as? String == "response" && o["status"] as? String == "incomplete")
        #expect((o["incomplete_details"] as? [String: String]) == ["reason": "max_output_tokens"])
        #expect(o["instructions"] as? String == "I" && o["store"] as? Bool == false)
        let output = try #require(o["output"] as? [[String: Any]])
        #expect(output.map { $0["type"] as? String } == ["reasoning", "message"])
        #expect(memory.count == 0)
    }

    @Test func memoryIsBoundedOldestFirst() {
        let memory = ResponseMemory(maxResponses: 2, maxBytes: 10)
        memory.keep("a", [ChatMessage(role: .user, content: "1")])
        memory.keep("b", [ChatMessage(role: .user, content: "2")])
        memory.keep("c", [ChatMessage(role: .user, content: "3")])
        #expect(memory.conversation("a") == nil && memory.conversation("b") != nil && memory.conversation("c") != nil)
        memory.keep("d", [ChatMessage(role: .user, content: "123456789")])
        // 1 + 1 + 9 bytes is over 10: the oldest goes.
        #expect(memory.conversation("b") == nil && memory.conversation("c") != nil && memory.conversation("d") != nil)
        memory.keep("e", [ChatMessage(role: .user, content: "12345678901")])  // over the whole bound: never kept
        #expect(memory.conversation("e") == nil && memory.count == 2)
    }
}
