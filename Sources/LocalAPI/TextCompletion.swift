import Inference

/// Text completion (Ollama `/api/generate`, OpenAI `/v1/completions`) on brains that speak
/// chat. Every route here (a Homebase through the relay, the laptop's llama-server, a cloud)
/// takes a chat request, and fill-in-the-middle needs a FIM-trained model behind llama-server's
/// own `/infill`, which the relay does not carry. So both are emulated, the same on every
/// route:
/// - a plain continuation (`raw`, `/v1/completions` without `suffix`): the prompt is the start
///   of the assistant's turn (`ChatRequest.continuation`, a prefill the engines continue);
/// - fill-in-the-middle (`suffix`): `fimInstructions` as the system message and the user turn
///   `<prefix>PROMPT</prefix>\n<suffix>SUFFIX</suffix>`; the answer is the middle.
enum TextCompletion {
    static let fimInstructions = """
        You fill a gap in a text. The text before the gap is between <prefix> and </prefix>, the \
        text after it between <suffix> and </suffix>. Answer with exactly the text that goes in the \
        gap: no explanation, no code fences, no repetition of the prefix or the suffix.
        """

    /// What a raw continuation asks, before the prefilled prompt.
    static let continueInstruction = "Continue the text."

    static func fim(prefix: String, suffix: String, system: String?) -> [ChatMessage] {
        let sys = [system, fimInstructions].compactMap { $0?.isEmpty == false ? $0 : nil }.joined(separator: "\n\n")
        return [ChatMessage(role: .system, content: sys),
                ChatMessage(role: .user, content: "<prefix>\(prefix)</prefix>\n<suffix>\(suffix)</suffix>")]
    }

    /// Messages and prefill of a plain continuation of `prompt`.
    static func continuation(_ prompt: String, system: String?) -> (messages: [ChatMessage], prefill: String) {
        var m: [ChatMessage] = []
        if let system, !system.isEmpty { m.append(ChatMessage(role: .system, content: system)) }
        m.append(ChatMessage(role: .user, content: continueInstruction))
        return (m, prompt)
    }
}
