import Foundation
import Testing
@testable import Inference

@Suite struct AnthropicDecoderTests {
    @Test func recordedStreamWithToolUseDecodesWhole() throws {
        let (events, done) = try decodeAnthropic(try recordedStream("anthropic_tools"), cuts: [])
        #expect(events == anthropicToolsEvents)
        #expect(done)
    }

    @Test func everySplitPointGivesTheSameEvents() throws {
        let bytes = try recordedStream("anthropic_tools")
        for cut in 1..<bytes.count {
            let (events, done) = try decodeAnthropic(bytes, cuts: [cut])
            #expect(events == anthropicToolsEvents, "split at \(cut)")
            #expect(done)
        }
    }

    @Test func crlfLineEndsSplitBetweenCRAndLF() throws {
        let lf = try recordedStream("anthropic_tools")
        var bytes: [UInt8] = []
        for b in lf { if b == 10 { bytes += [13, 10] } else { bytes.append(b) } }
        let crs = bytes.indices.filter { bytes[$0] == 13 }.map { $0 + 1 }
        let (events, done) = try decodeAnthropic(bytes, cuts: crs)
        #expect(events == anthropicToolsEvents)
        #expect(done)
    }

    @Test func pingIsNotOutput() throws {
        let ping = Array("event: ping\ndata: {\"type\": \"ping\"}\n\n".utf8)
        let (events, done) = try decodeAnthropic(ping, cuts: [])
        #expect(events.isEmpty)
        #expect(!done)
    }

    @Test func inBandErrorAfterTextFails() throws {
        let bytes = try recordedStream("anthropic_error")
        #expect(throws: InferenceError.inBand("Overloaded")) { _ = try decodeAnthropic(bytes, cuts: []) }
    }

    @Test func streamCutBeforeMessageStopIsNotDone() throws {
        let (events, done) = try decodeAnthropic(try recordedStream("anthropic_cut"), cuts: [])
        #expect(!done)
        #expect(!events.contains { if case .done = $0 { true } else { false } })
        // The tool call was complete (its block stopped) before the cut: two texts, its three
        // deltas, the whole call.
        #expect(events.count == 6)
        #expect(events.last.map { if case .toolCall = $0 { true } else { false } } == true)
    }

    @Test func messageStopWithAnOpenToolBlockIsMalformed() throws {
        let text = """
            event: content_block_start
            data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}

            event: message_stop
            data: {"type":"message_stop"}


            """
        #expect(throws: InferenceError.self) { _ = try decodeAnthropic(Array(text.utf8), cuts: []) }
    }

    @Test func stopReasonsInOpenAIWords() {
        #expect(AnthropicStreamDecoder.finishReason("end_turn") == "stop")
        #expect(AnthropicStreamDecoder.finishReason("stop_sequence") == "stop")
        #expect(AnthropicStreamDecoder.finishReason("max_tokens") == "length")
        #expect(AnthropicStreamDecoder.finishReason("tool_use") == "tool_calls")
        #expect(AnthropicStreamDecoder.finishReason("refusal") == "refusal")
        #expect(AnthropicStreamDecoder.finishReason(nil) == "stop")
    }

    @Test func requestBodyUsesTopLevelSystemInputSchemaAndToolBlocks() throws {
        var r = weatherRequest
        r.continuation = "It is "
        let body = try JSONSerialization.jsonObject(with: Data(try AnthropicRequestBody.encode(r))) as! [String: Any]
        #expect(body["system"] as? String == "Be brief.")
        #expect(body["max_tokens"] as? Int == 64)
        #expect(body["stream"] as? Bool == true)
        let tools = body["tools"] as! [[String: Any]]
        #expect(tools[0]["name"] as? String == "get_weather")
        #expect((tools[0]["input_schema"] as? [String: Any])?["type"] as? String == "object")
        let messages = body["messages"] as! [[String: Any]]
        #expect(messages.map { $0["role"] as! String } == ["user", "assistant", "user", "assistant"])
        let use = (messages[1]["content"] as! [[String: Any]])[0]
        #expect(use["type"] as? String == "tool_use")
        #expect((use["input"] as? [String: Any])?["location"] as? String == "Bern")
        let results = messages[2]["content"] as! [[String: Any]]
        #expect(results[0]["type"] as? String == "tool_result")
        #expect(results[0]["tool_use_id"] as? String == "toolu_0")
        #expect(results[1]["text"] as? String == "And Zürich?")
        // Prefill without the trailing space the API refuses.
        #expect(messages[3]["content"] as? String == "It is")
    }

    @Test func toolArgumentsThatAreNotAnObjectAreRefused() {
        var r = weatherRequest
        r.messages[2].toolCalls[0].argumentsJSON = "[1,2]"
        #expect(throws: InferenceError.self) { _ = try AnthropicRequestBody.encode(r) }
    }

    @Test func imagesToolChoiceAndSamplingInAnthropicsWords() throws {
        var r = weatherRequest
        let jpeg = ImageData(mediaType: "image/jpeg", bytes: [0xFF, 0xD8, 0xFF, 0x00])
        r.messages[4] = ChatMessage(role: .user, parts: [.image(jpeg), .text("And here?")])
        r.toolChoice = .function("get_weather")
        r.options.stop = ["END"]; r.options.topP = 0.8; r.options.topK = 20
        let body = try JSONSerialization.jsonObject(with: Data(try AnthropicRequestBody.encode(r))) as! [String: Any]
        #expect(body["stop_sequences"] as? [String] == ["END"])
        #expect(body["top_p"] as? Double == 0.8)
        #expect(body["top_k"] as? Int == 20)
        #expect(body["temperature"] == nil)
        #expect(body["tool_choice"] as? [String: String] == ["type": "tool", "name": "get_weather"])
        let last = (body["messages"] as! [[String: Any]])[2]["content"] as! [[String: Any]]
        #expect(last.map { $0["type"] as? String } == ["tool_result", "image", "text"])
        let source = try #require(last[1]["source"] as? [String: String])
        #expect(source == ["type": "base64", "media_type": "image/jpeg", "data": Data(jpeg.bytes).base64EncodedString()])
        #expect(AnthropicRequestBody.toolChoice(.required) as? [String: String] == ["type": "any"])
        #expect(AnthropicRequestBody.toolChoice(.none) as? [String: String] == ["type": "none"])
    }

    /// An option the Messages API has no name for is named in the error, never dropped.
    @Test func optionsAnthropicCannotTakeAreNamed() {
        var r = weatherRequest
        r.options.seed = 1; r.options.minP = 0.1; r.options.responseFormat = .jsonObject
        r.options.extra = ["mirostat": "2"]
        #expect(throws: InferenceError.unsupported("Anthropic's Messages API takes no min_p, seed, response_format, mirostat")) {
            _ = try AnthropicRequestBody.encode(r)
        }
    }

    @Test func thinkingBlocksAreReasoning() throws {
        let text = """
            event: content_block_start
            data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm, "}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}

            event: content_block_stop
            data: {"type":"content_block_stop","index":0}

            event: content_block_start
            data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Yes."}}

            event: message_stop
            data: {"type":"message_stop"}


            """
        let (events, done) = try decodeAnthropic(Array(text.utf8), cuts: [])
        #expect(done)
        #expect(events.filter { $0 != .text("") } == [.reasoning("Hmm, "), .text("Yes."), .done(finishReason: "stop", usage: nil)])
    }
}
