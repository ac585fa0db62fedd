import Foundation

/// Turns the SSE events of a streamed chat completion into `ChatEvent`s: a pure state machine,
/// tested without sockets.
///
/// Text and reasoning deltas pass through as they come, a chunk's `logprobs.content` after its
/// text as `.logprobs`; each tool-call delta passes through as
/// `.toolCallDelta`, and the calls are also reassembled and emitted whole, in index order, when
/// the choice finishes; `.done` is emitted on `data: [DONE]` only. In-band errors of
/// every known shape throw `InferenceError.inBand`.
struct OpenAIStreamDecoder {
    private let json = JSONDecoder()
    private var tools = ToolCallAssembler()
    private var finishReason: String?
    private var usage: Usage?
    /// `[DONE]` was seen: the answer is complete, later events are ignored.
    private(set) var isDone = false

    /// Handles one event, appending what it produces to `out`.
    mutating func handle(_ event: SSEEvent, into out: inout [ChatEvent]) throws {
        guard !isDone else { return }
        switch event.type {
        case "error":
            throw InferenceError.inBand(Self.errorMessage(inText: event.data))
        case SSEEvent.strayLineType:
            try handleStray(event.data)
        default:
            if event.data == "[DONE]" {
                try flushTools(into: &out)
                isDone = true
                out.append(.done(finishReason: finishReason ?? "stop", usage: usage))
                return
            }
            try handleChunk(event.data, into: &out)
        }
    }

    private mutating func handleChunk(_ data: String, into out: inout [ChatEvent]) throws {
        // The common text delta without JSONDecoder; anything else is decoded below as before.
        if let fast = OpenAIChunkFastPath.textDelta(data) {
            if let text = fast.text, !text.isEmpty { out.append(.text(text)) }
            if let reason = fast.finishReason {
                finishReason = reason
                try flushTools(into: &out)
            }
            return
        }
        let chunk: OpenAIChunk
        do {
            chunk = try json.decode(OpenAIChunk.self, from: Data(data.utf8))
        } catch {
            throw InferenceError.malformed("a stream chunk is not a JSON object")
        }
        if let e = chunk.error { throw InferenceError.inBand(HTTPErrorMessage.bounded(e.message)) }
        if let u = chunk.usage {
            usage = Usage(promptTokens: u.prompt_tokens ?? 0, completionTokens: u.completion_tokens ?? 0)
        }
        // n = 1: only the first choice is ours.
        guard let choice = chunk.choices?.first else { return }
        if let thought = choice.delta?.reasoning_content ?? choice.delta?.reasoning, !thought.isEmpty {
            out.append(.reasoning(thought))
        }
        if let text = choice.delta?.content, !text.isEmpty { out.append(.text(text)) }
        if let entries = choice.logprobs?.content, !entries.isEmpty {
            let tokens = entries.compactMap(Self.logprob)
            if !tokens.isEmpty { out.append(.logprobs(tokens)) }
        }
        if let calls = choice.delta?.tool_calls {
            for (position, c) in calls.enumerated() {
                let index = c.index ?? position
                tools.add(index: index, id: c.id, name: c.function?.name, arguments: c.function?.arguments)
                out.append(.toolCallDelta(ToolCallDelta(index: index, id: c.id.flatMap { $0.isEmpty ? nil : $0 },
                                                        name: c.function?.name.flatMap { $0.isEmpty ? nil : $0 },
                                                        arguments: c.function?.arguments ?? "")))
            }
        }
        if let reason = choice.finish_reason {
            finishReason = reason
            try flushTools(into: &out)
        }
    }

    /// An entry without a token or a finite logprob is skipped; bytes outside 0...255 drop the bytes.
    static func logprob(_ e: OpenAIChunk.Entry) -> TokenLogprob? {
        guard let token = e.token, let lp = e.logprob, lp.isFinite else { return nil }
        return TokenLogprob(token: token, logprob: lp, bytes: bytes(e.bytes),
                            top: (e.top_logprobs ?? []).compactMap { a in
                                guard let t = a.token, let l = a.logprob, l.isFinite else { return nil }
                                return TokenLogprob.Alternative(token: t, logprob: l, bytes: bytes(a.bytes))
                            })
    }

    private static func bytes(_ ints: [Int]?) -> [UInt8]? {
        guard let ints, ints.allSatisfy({ (0...255).contains($0) }) else { return nil }
        return ints.map { UInt8($0) }
    }

    private mutating func flushTools(into out: inout [ChatEvent]) throws {
        guard !tools.isEmpty else { return }
        for call in try tools.drain() { out.append(.toolCall(call)) }
    }

    /// A line that is not SSE: Ollama's bare `{"error": ...}`, llama.cpp's `error: {...}`.
    private func handleStray(_ line: String) throws {
        if line.hasPrefix("{") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               object["error"] != nil, let m = HTTPErrorMessage.message(in: object) {
                throw InferenceError.inBand(HTTPErrorMessage.bounded(m))
            }
        } else if line.hasPrefix("error:") {
            throw InferenceError.inBand(Self.errorMessage(inText: String(line.dropFirst(6))))
        }
        // Any other stray line is ignored, as the SSE rules ignore unknown fields.
    }

    /// The message of an error event's data: JSON of any known shape, else the bounded text.
    static func errorMessage(inText text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) {
            if let m = HTTPErrorMessage.message(in: object) { return HTTPErrorMessage.bounded(m) }
        }
        return HTTPErrorMessage.bounded(trimmed.isEmpty ? "unspecified error" : trimmed)
    }
}
