// The per-scalar transitions of ToolCallParser.

extension ToolCallParser {
    mutating func step(_ c: Unicode.Scalar) {
        switch mode {
        case .lead(let afterCall):
            if Self.isSpace(c) || (afterCall && c == ";") { held.unicodeScalars.append(c); return }
            if c == "{" { mode = .bare; startBody(); collect(c); return }
            // Prose: the held whitespace is text, and this scalar may begin a marker.
            let whitespace = held
            held = ""; mode = .text
            emitText(whitespace)
            stepText(c)
        case .text:
            stepText(c)
        case .bare:
            collect(c)
            if mode == .bare && scanner.isComplete { finishBare() }
        case .tagged:
            collect(c)
            if mode == .tagged && body.hasSuffix(CallMarker.hermesClose) { finishTagged(closed: true) }
        case .marked(let marker, let started):
            if !started {
                if Self.isSpace(c) { return }
                guard c == "{" || (marker == .mistral && c == "[") else {
                    mode = .junk; collect(c); return
                }
                mode = .marked(marker, started: true)
            }
            collect(c)
            if mode == .marked(marker, started: true) && scanner.isComplete { finishMarked(marker) }
        case .junk:
            collect(c)
        case .discard:
            break
        }
    }

    /// Text mode: hold the longest suffix that is still a prefix of a marker, emit the rest.
    private mutating func stepText(_ c: Unicode.Scalar) {
        held.unicodeScalars.append(c)
        let markers = family.markers
        while !held.isEmpty {
            if let marker = markers.first(where: { $0.rawValue == held }) {
                held = ""
                startBody()
                mode = marker == .hermes ? .tagged : .marked(marker, started: false)
                return
            }
            if markers.contains(where: { $0.rawValue.unicodeScalars.starts(with: held.unicodeScalars) }) {
                return
            }
            let first = held.unicodeScalars.removeFirst()
            pendingText.unicodeScalars.append(first)
        }
    }

    private mutating func startBody() {
        body = ""; bodyBytes = 0; scanner = JSONScanner()
    }

    /// Appends to the call's body; past `maxCallBytes` the call is refused and the turn dropped.
    private mutating func collect(_ c: Unicode.Scalar) {
        body.unicodeScalars.append(c)
        bodyBytes += UTF8.width(c)
        if mode != .tagged && mode != .junk { scanner.feed(c) }
        if bodyBytes > maxCallBytes {
            emitMalformed("the call is longer than \(maxCallBytes) bytes", raw: String(body.prefix(200)))
            held = ""; body = ""; bodyBytes = 0
            mode = .discard
        }
    }

    private mutating func finishBare() {
        let raw = body
        body = ""
        switch ToolCallDecoder.decodeObject(raw) {
        case .notACall:
            emitText(held + raw); mode = .text
        case .invalid where !raw.contains("\"name\""):
            emitText(held + raw); mode = .text
        case let shape:
            emit(shape, raw: raw); mode = .lead(afterCall: true)
        }
        held = ""
    }

    mutating func finishTagged(closed: Bool) {
        var raw = body
        if closed { raw.removeLast(CallMarker.hermesClose.count) }
        body = ""
        mode = .text
        let json = raw.trimmingSpaces
        if json.isEmpty { emitMalformed("\(CallMarker.hermes.rawValue) holds no call", raw: raw); return }
        let shape = ToolCallDecoder.decodeObject(json)
        if !closed, case .call = shape {
            emit(shape, raw: json)  // some models end the turn without the closing tag
        } else if !closed {
            emitMalformed("\(CallMarker.hermes.rawValue) is never closed", raw: json)
        } else {
            emit(shape, raw: json)
        }
    }

    mutating func finishMarked(_ marker: CallMarker) {
        let raw = body.trimmingSpaces
        body = ""
        if marker == .mistral {
            for shape in ToolCallDecoder.decodeList(raw) { emit(shape, raw: raw) }
            mode = .text
        } else {
            emit(ToolCallDecoder.decodeObject(raw), raw: raw)
            mode = family.bareJSONAtStart ? .lead(afterCall: true) : .text
        }
    }

    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\n" || c == "\t" || c == "\r"
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and newlines (no Foundation needed).
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let start = scalars.firstIndex(where: { !ToolCallParser.isSpace($0) }),
              let end = scalars.lastIndex(where: { !ToolCallParser.isSpace($0) }) else { return "" }
        return String(scalars[start...end])
    }
}
