import AgentKit
import Inference

// SplitMix64 (deterministic random numbers: failures replay) is TestSupport's, re-exported for
// every file of this target.
@_exported import TestSupport

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
