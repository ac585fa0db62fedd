import Foundation
import Inference
import Testing
@testable import LocalAPI

/// Ollama `/api/generate` and OpenAI `/v1/completions`: readers and shapes, without sockets.
@Suite struct TextCompletionTests {
    @Test func generateWithSuffixIsAFillInTheMiddlePrompt() throws {
        let body = #"{"model":"coder","prompt":"def add(a, b):\n","suffix":"\n    return c","system":"Python only.","stream":false,"#
            + #""options":{"temperature":0.1,"num_predict":32,"top_k":5,"stop":["\n\n"],"num_ctx":4096,"seed":7,"num_gpu":1}}"#
        let (api, model) = try OllamaGenerateReader.read(Array(body.utf8))
        let r = try #require(api)
        #expect(model == "coder" && !r.stream)
        #expect(r.chat.messages.map(\.role) == [.system, .user])
        #expect(r.chat.messages[0].content.hasPrefix("Python only.\n\n") && r.chat.messages[0].content.contains("<suffix>"))
        #expect(r.chat.messages[1].content == "<prefix>def add(a, b):\n</prefix>\n<suffix>\n    return c</suffix>")
        #expect(r.chat.continuation == nil)
        #expect(r.chat.temperature == 0.1 && r.chat.maxTokens == 32)
        #expect(r.chat.options.topK == 5 && r.chat.options.stop == ["\n\n"] && r.chat.options.contextLength == 4096 && r.chat.options.seed == 7)
    }

    @Test func generatePlainRawImagesFormatAndTheLoadProbe() throws {
        let plain = try #require(try OllamaGenerateReader.read(Array(#"{"model":"m","prompt":"Why?","system":"S"}"#.utf8)).api)
        #expect(plain.stream)
        #expect(plain.chat.messages == [ChatMessage(role: .system, content: "S"), ChatMessage(role: .user, content: "Why?")])
        let raw = try #require(try OllamaGenerateReader.read(Array(#"{"model":"m","prompt":"Once upon","raw":true}"#.utf8)).api)
        #expect(raw.chat.continuation == "Once upon")
        #expect(raw.chat.messages.last?.content == TextCompletion.continueInstruction)
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 1]).base64EncodedString()
        let img = try #require(try OllamaGenerateReader.read(Array(#"{"model":"m","prompt":"What?","images":["\#(jpeg)"],"format":"json"}"#.utf8)).api)
        #expect(img.chat.messages.last?.images.first?.mediaType == "image/jpeg")
        #expect(img.chat.options.responseFormat == .jsonObject)
        let load = try OllamaGenerateReader.read(Array(#"{"model":"m"}"#.utf8))
        #expect(load.api == nil && load.model == "m")
        let loaded = object(OllamaGenerateEncoder.loaded(model: "m"))
        #expect(loaded["done"] as? Bool == true && loaded["done_reason"] as? String == "load")
        #expect(throws: LocalAPIError.self) { try OllamaGenerateReader.read(Array(#"{"model":"m","prompt":"x","template":"{{ .Prompt }}"}"#.utf8)) }
    }

    @Test func generateLinesAndWholeAnswer() throws {
        var enc = OllamaGenerateEncoder(model: "m", homebase: ["brain": "homebase"])
        let line = object(Array(enc.stream(.text("Hi")).dropLast()))
        #expect(line["response"] as? String == "Hi" && line["done"] as? Bool == false)
        let keep = object(Array(enc.keepAlive().dropLast()))
        #expect(keep["response"] as? String == "" && keep["done"] as? Bool == false)
        let done = object(Array(enc.stream(.done(finishReason: "stop", usage: Usage(promptTokens: 1, completionTokens: 2))).dropLast()))
        #expect(done["done"] as? Bool == true && done["eval_count"] as? Int == 2 && (done["homebase"] as? [String: String])?["brain"] == "homebase")
        enc.collect(.text("a")); enc.collect(.reasoning("r")); enc.collect(.text("b"))
        let whole = object(enc.whole(finishReason: "length", usage: nil))
        #expect(whole["response"] as? String == "ab" && whole["thinking"] as? String == "r" && whole["done_reason"] as? String == "length")
    }

    @Test func completionsReaderContinuesThePromptAndDefaultsTo16Tokens() throws {
        let (api, echo) = try CompletionsReader.read(Array(#"{"model":"m","prompt":["Say"],"stop":"\n","echo":true,"stream":true}"#.utf8))
        #expect(api.chat.continuation == "Say" && api.chat.maxTokens == CompletionsReader.defaultMaxTokens)
        #expect(api.chat.options.stop == ["\n"] && echo == "Say" && api.stream)
        let (fim, _) = try CompletionsReader.read(Array(#"{"model":"m","prompt":"a","suffix":"c","max_tokens":3}"#.utf8))
        #expect(fim.chat.continuation == nil && fim.chat.messages.last?.content == "<prefix>a</prefix>\n<suffix>c</suffix>")
        #expect(throws: LocalAPIError.self) { try CompletionsReader.read(Array(#"{"model":"m","prompt":"a","n":2}"#.utf8)) }
        #expect(throws: LocalAPIError.self) { try CompletionsReader.read(Array(#"{"model":"m","prompt":["a","b"]}"#.utf8)) }
    }

    @Test func completionsChunksAndWhole() throws {
        var enc = CompletionsEncoder(model: "m", includeUsage: true, echo: "P", homebase: ["brain": "on-device"])
        var bytes = enc.stream(.text("x"))
        bytes += enc.stream(.done(finishReason: "stop", usage: Usage(promptTokens: 1, completionTokens: 1)))
        let e = namedEvents(bytes)
        #expect(e.count == 5)
        let texts = e.prefix(2).compactMap { (($0.data?["choices"] as? [[String: Any]])?.first?["text"] as? String) }
        #expect(texts == ["P", "x"])
        #expect(e[0].data?["object"] as? String == "text_completion")
        #expect(((e[2].data?["choices"] as? [[String: Any]])?.first?["finish_reason"] as? String) == "stop")
        #expect((e[3].data?["usage"] as? [String: Int])?["total_tokens"] == 2)
        #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("data: [DONE]\n\n"))
        var whole = CompletionsEncoder(model: "m", includeUsage: false, echo: nil, homebase: [:])
        whole.collect(.text("ab"))
        let o = object(whole.whole(finishReason: "length", usage: nil))
        #expect(((o["choices"] as? [[String: Any]])?.first?["text"] as? String) == "ab")
    }
}
