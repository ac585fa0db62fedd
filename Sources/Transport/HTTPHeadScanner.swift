/// Accumulates bytes until an HTTP head ends (CRLF CRLF) and splits it into lines.
/// Shared by the request parser (server) and the response parser (client upgrade).
struct HTTPHeadScanner {
    enum Step: Equatable {
        case needMore
        /// The head's lines without their CRLF, plus how many bytes of `buffer` the head used.
        case head(lines: [ArraySlice<UInt8>], length: Int)
        case tooLarge
        /// A bare CR or LF, or a control byte where none may be.
        case malformed
    }

    let maxBytes: Int
    private(set) var buffer: [UInt8] = []
    private var scanned = 0

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    mutating func append(_ bytes: UnsafeRawBufferPointer) { buffer.append(contentsOf: bytes) }

    /// Bytes after the head (a body, or WebSocket frames sent early); empties the buffer.
    mutating func takeBytes(from offset: Int) -> [UInt8] {
        defer { buffer = []; scanned = 0 }
        return offset >= buffer.count ? [] : Array(buffer[offset...])
    }

    mutating func scan() -> Step {
        let limit = min(buffer.count, maxBytes)
        var i = max(scanned, 3)
        while i < limit {
            if buffer[i] == 10, buffer[i - 1] == 13, buffer[i - 2] == 10, buffer[i - 3] == 13 {
                return split(headLength: i + 1)
            }
            i += 1
        }
        scanned = max(scanned, limit)
        return buffer.count >= maxBytes ? .tooLarge : .needMore
    }

    private func split(headLength: Int) -> Step {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var i = 0
        let end = headLength - 2 // the final empty line's CRLF
        while i < end {
            let c = buffer[i]
            if c == 13 {
                guard i + 1 < headLength, buffer[i + 1] == 10 else { return .malformed }
                lines.append(buffer[start..<i])
                i += 2; start = i
                continue
            }
            // LF without CR, NUL and other controls (HTAB excepted) never appear in a head.
            if c == 10 || (c < 32 && c != 9) || c == 127 { return .malformed }
            i += 1
        }
        return .head(lines: lines, length: headLength)
    }
}

/// Header-line parsing shared by requests and responses (RFC 9112 section 5).
enum HTTPFieldLine {
    static func isToken(_ c: UInt8) -> Bool {
        switch c {
        case 48...57, 65...90, 97...122: return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default: return false
        }
    }

    /// `name: value` with no space before the colon and no obs-fold; nil if malformed.
    static func parse(_ line: ArraySlice<UInt8>) -> (String, String)? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { return nil }
        let name = line[line.startIndex..<colon]
        guard name.allSatisfy(isToken) else { return nil }
        var v = line[(colon + 1)...]
        while let f = v.first, f == 32 || f == 9 { v.removeFirst() }
        while let l = v.last, l == 32 || l == 9 { v.removeLast() }
        return (String(decoding: name, as: UTF8.self), String(decoding: v, as: UTF8.self))
    }

    static func headers(_ lines: ArraySlice<ArraySlice<UInt8>>) -> HTTPHeaders? {
        var h = HTTPHeaders()
        for line in lines {
            guard let (n, v) = parse(line) else { return nil }
            h.add(n, v)
        }
        return h
    }
}
