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
        // The tool call was complete (its block stopped) before the cut.
        #expect(events.count == 3)
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
}
