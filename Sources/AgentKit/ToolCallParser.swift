import Inference

/// Pulls tool calls out of a model's streamed text, one chunk at a time.
///
/// A pure state machine: `feed` any split of the text, then `finish`; the events are the same
/// for every split. Text that could still be the start of a call (a marker prefix such as
/// `<tool_`, leading whitespace before a possible bare JSON call) is held back only while it
/// could; everything else comes out at once. A call that cannot be parsed becomes `.malformed`.
public struct ToolCallParser: Sendable {
    /// Largest call buffered, in UTF-8 bytes (256 KiB): a runaway model cannot grow memory
    /// without bound; a longer call is malformed and the rest of the turn is dropped.
    public static let defaultMaxCallBytes = 256 * 1024

    enum Mode: Sendable, Equatable {
        /// Start of message or just after a call: only whitespace (and `;` after a call) so far.
        case lead(afterCall: Bool)
        case text
        /// A bare JSON object at the start of the message.
        case bare
        /// Inside `<tool_call>`, until `</tool_call>`.
        case tagged
        /// After `[TOOL_CALLS]` or `<|python_tag|>`: whitespace, then one JSON value.
        case marked(CallMarker, started: Bool)
        /// After a marker, something that is not JSON: kept until the end, then refused.
        case junk
        /// A call overflowed `maxCallBytes`: the rest of the turn is dropped.
        case discard
    }

    public let family: ToolFamily
    let maxCallBytes: Int
    let idPrefix: String
    var mode: Mode
    /// Text held back: a possible marker prefix (text mode) or leading whitespace (lead/bare).
    var held = ""
    /// The call being collected.
    var body = ""
    var bodyBytes = 0
    var scanner = JSONScanner()
    var pendingText = ""
    var events: [ParsedEvent] = []
    var callCount = 0

    /// - Parameter idPrefix: ids of calls found in text are `idPrefix` + a counter (`call_1_1`);
    ///   give each turn its own prefix so ids stay unique within a run.
    public init(family: ToolFamily, idPrefix: String = "call_", maxCallBytes: Int = defaultMaxCallBytes) {
        self.family = family; self.idPrefix = idPrefix; self.maxCallBytes = maxCallBytes
        self.mode = family.bareJSONAtStart ? .lead(afterCall: false) : .text
    }

    /// Feeds the next chunk; returns what is now certain.
    public mutating func feed(_ text: String) -> [ParsedEvent] {
        for c in text.unicodeScalars { step(c) }
        return drain()
    }
}
