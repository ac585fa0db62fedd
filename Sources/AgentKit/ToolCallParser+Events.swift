// How ToolCallParser ends a message and hands out its events.
import Inference

extension ToolCallParser {
    /// Ends the message: releases held text, reports an unfinished call. The parser is then
    /// ready for a new message.
    public mutating func finish() -> [ParsedEvent] {
        switch mode {
        case .lead, .text:
            emitText(held)
        case .bare:
            if body.contains("\"name\"") {  // a broken call, not JSON-looking prose
                emitMalformed("the call's JSON is incomplete", raw: body)
            } else {
                emitText(held + body)
            }
        case .tagged:
            finishTagged(closed: false)
        case .marked(let marker, let started):
            if started { finishMarked(marker) }
            else { emitMalformed("\(marker.rawValue) is not followed by a call", raw: body) }
        case .junk:
            emitMalformed("the call is not JSON", raw: body)
        case .discard:
            break
        }
        held = ""; body = ""; bodyBytes = 0
        mode = family.bareJSONAtStart ? .lead(afterCall: false) : .text
        return drain()
    }

    mutating func emitText(_ text: String) {
        pendingText += text
    }

    mutating func emitMalformed(_ reason: String, raw: String, name: String? = nil) {
        flushText()
        events.append(.malformed(reason: reason, name: name ?? ToolCallDecoder.sniffName(raw), raw: raw))
    }

    mutating func emit(_ shape: CallShape, raw: String) {
        switch shape {
        case let .call(name, arguments):
            // Ids are always ours (a model's own ids may repeat across turns).
            flushText()
            callCount += 1
            events.append(.toolCall(ToolCall(id: "\(idPrefix)\(callCount)", name: name, argumentsJSON: arguments)))
        case .notACall:
            emitMalformed("the call has no name", raw: raw)
        case let .invalid(reason, name):
            emitMalformed(reason, raw: raw, name: name)
        }
    }

    mutating func flushText() {
        if !pendingText.isEmpty { events.append(.text(pendingText)); pendingText = "" }
    }

    mutating func drain() -> [ParsedEvent] {
        flushText()
        defer { events = [] }
        return events
    }
}
