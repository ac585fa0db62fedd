/// Reassembles streamed tool calls: OpenAI-style deltas carry an `index`, the first delta of a
/// call its `id` and function `name`, later ones fragments of the `arguments` text.
struct ToolCallAssembler: Sendable {
    private struct Partial: Sendable {
        var index: Int
        var id = ""
        var name = ""
        var arguments = ""
    }

    private var calls: [Partial] = []

    var isEmpty: Bool { calls.isEmpty }

    /// Adds one delta. A missing index means "the call at this position of the delta array".
    mutating func add(index: Int, id: String?, name: String?, arguments: String?) {
        let slot: Int
        if let at = calls.firstIndex(where: { $0.index == index }) {
            slot = at
        } else {
            calls.append(Partial(index: index))
            slot = calls.count - 1
        }
        // id and name come once; servers that repeat them on every delta repeat the same value.
        if let id, !id.isEmpty, calls[slot].id.isEmpty { calls[slot].id = id }
        if let name, !name.isEmpty, calls[slot].name.isEmpty { calls[slot].name = name }
        if let arguments { calls[slot].arguments += arguments }
    }

    /// The complete calls in index order; empties the assembler. A call without a name is
    /// malformed; one without an id gets `call_<index>`; empty arguments become `{}`.
    mutating func drain() throws -> [ToolCall] {
        defer { calls.removeAll() }
        return try calls.sorted { $0.index < $1.index }.map { p in
            guard !p.name.isEmpty else { throw InferenceError.malformed("tool call \(p.index) has no function name") }
            return ToolCall(id: p.id.isEmpty ? "call_\(p.index)" : p.id, name: p.name,
                            argumentsJSON: p.arguments.isEmpty ? "{}" : p.arguments)
        }
    }
}
