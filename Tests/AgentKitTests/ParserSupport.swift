import AgentKit
import Inference

/// Deterministic random numbers (SplitMix64): failures replay.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Feeds `chunks` then finishes; adjacent text events merged (only their sum is specified).
func parse(_ chunks: [String], family: ToolFamily, maxCallBytes: Int = ToolCallParser.defaultMaxCallBytes) -> [ParsedEvent] {
    var parser = ToolCallParser(family: family, idPrefix: "c", maxCallBytes: maxCallBytes)
    var events: [ParsedEvent] = []
    for chunk in chunks { events += parser.feed(chunk) }
    events += parser.finish()
    return merged(events)
}

func merged(_ events: [ParsedEvent]) -> [ParsedEvent] {
    var out: [ParsedEvent] = []
    for event in events {
        if case .text(let t) = event, case .text(let previous)? = out.last {
            out[out.count - 1] = .text(previous + t)
        } else {
            out.append(event)
        }
    }
    return out
}

/// Splits at unicode-scalar offsets (finer than characters: a split may fall inside an emoji).
func split(_ text: String, at offsets: [Int]) -> [String] {
    let scalars = Array(text.unicodeScalars)
    var chunks: [String] = []
    var start = 0
    for offset in offsets.sorted() + [scalars.count] where offset >= start {
        var chunk = String.UnicodeScalarView()
        chunk.append(contentsOf: scalars[start..<offset])
        chunks.append(String(chunk))
        start = offset
    }
    return chunks
}

func call(_ id: String, _ name: String, _ args: String) -> ParsedEvent {
    .toolCall(ToolCall(id: id, name: name, argumentsJSON: args))
}

/// A dialect sample and the events it must give however it is split.
struct DialectSample: Sendable, CustomStringConvertible {
    var label: String
    var family: ToolFamily
    var text: String
    var expected: [ParsedEvent]
    var description: String { label }
}
