import Inference
import Synchronization

/// The conversations behind `previous_response_id`: for each stored response, the messages it
/// saw (history and input, instructions excluded: the Responses API does not carry them over)
/// and its answer. In memory only, so a restarted `guest serve` forgets them (the client then
/// gets `previous_response_not_found` and starts over). Bounded: at most `maxResponses`
/// responses and `maxBytes` of text and images together; the oldest go first.
/// A response made with `store: false` is never put here. Each keeps its response object and
/// input items too, for `GET /v1/responses/{id}` and `.../input_items` (`ResponsesRetrieval`).
final class ResponseMemory: Sendable {
    static let defaultMaxResponses = 256
    static let defaultMaxBytes = 64 * 1024 * 1024

    let maxResponses: Int
    let maxBytes: Int
    private struct State {
        var order: [String] = []
        var conversations: [String: Kept] = [:]
        var bytes = 0
    }
    private let state = Mutex(State())
    /// One stored response: its conversation (answer last), its response object and its own
    /// input items, as JSON.
    struct Kept: Sendable {
        var messages: [ChatMessage]
        var response: [UInt8] = []
        var inputItems: [UInt8] = []
        var bytes = 0
    }

    init(maxResponses: Int = defaultMaxResponses, maxBytes: Int = defaultMaxBytes) {
        self.maxResponses = maxResponses; self.maxBytes = maxBytes
    }

    /// The conversation of response `id` (its answer last), nil when unknown or forgotten.
    func conversation(_ id: String) -> [ChatMessage]? { state.withLock { $0.conversations[id]?.messages } }

    /// Response `id` as kept, nil when unknown, forgotten or deleted.
    func kept(_ id: String) -> Kept? { state.withLock { $0.conversations[id] } }

    /// Forgets response `id`; false when it was not kept.
    func remove(_ id: String) -> Bool {
        state.withLock { s in
            guard let old = s.conversations.removeValue(forKey: id) else { return false }
            s.bytes -= old.bytes
            s.order.removeAll { $0 == id }
            return true
        }
    }

    func keep(_ id: String, _ messages: [ChatMessage], response: [UInt8] = [], inputItems: [UInt8] = []) {
        let size = messages.reduce(0) { $0 + Self.size($1) } + response.count + inputItems.count
        guard size <= maxBytes else { return }
        state.withLock { s in
            if let old = s.conversations.removeValue(forKey: id) { s.bytes -= old.bytes; s.order.removeAll { $0 == id } }
            s.conversations[id] = Kept(messages: messages, response: response, inputItems: inputItems, bytes: size)
            s.order.append(id)
            s.bytes += size
            while s.order.count > maxResponses || s.bytes > maxBytes {
                let first = s.order.removeFirst()
                s.bytes -= s.conversations.removeValue(forKey: first)?.bytes ?? 0
            }
        }
    }

    var count: Int { state.withLock { $0.order.count } }

    private static func size(_ m: ChatMessage) -> Int {
        m.parts.reduce(0) { n, p in
            switch p {
            case .text(let t): n + t.utf8.count
            case .image(let i): n + i.bytes.count
            }
        } + m.toolCalls.reduce(0) { $0 + $1.argumentsJSON.utf8.count + $1.name.utf8.count }
    }
}
