// Server-sent events (WHATWG HTML, "Interpreting an event stream"), as a pure incremental state
// machine: bytes in, complete events out, no I/O.
//
//   stream = [ BOM ] *event             BOM = EF BB BF, stripped once at the very start
//   line   ends with CRLF | LF | CR     a CR at the end of one chunk may pair with an LF in the next
//   ":" ...                             comment, ignored (servers use it as a keepalive)
//   "data" [ ":" [ " " ] value ]        appended to the data buffer, then LF
//   "event" ...                         the event type (default "message")
//   "id" ...                            the last event id (ignored if it contains NUL)
//   "retry" ...                         reconnection time in ms, ASCII digits only
//   empty line                          dispatch: data without its final LF; nothing if no data
//   end of stream                       a pending, undispatched event is discarded

/// One dispatched event.
public struct SSEEvent: Sendable, Equatable {
    /// The `event:` field, "message" when none was given.
    public var type: String
    public var data: String
    /// The last event id seen so far in the stream.
    public var lastEventID: String

    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type; self.data = data; self.lastEventID = lastEventID
    }

    /// Type of the events `SSEParser(reportsStrayLines: true)` makes of lines that are not SSE
    /// (`{"error": ...}` written bare by Ollama, `error: {...}` by some llama.cpp builds).
    /// The line is the data.
    public static let strayLineType = "homebase.stray-line"
}

public struct SSEParser: Sendable {
    private static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A, colon: UInt8 = 0x3A, space: UInt8 = 0x20

    /// Report non-SSE field lines as `SSEEvent.strayLineType` events instead of ignoring them
    /// (a non-standard extension, off by default).
    public var reportsStrayLines: Bool
    public private(set) var lastEventID = ""
    /// The last valid `retry:` value, in milliseconds.
    public private(set) var retryMilliseconds: Int?

    private var bomMatched = 0
    private var bomDone = false
    private var afterCR = false
    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var eventType = ""

    public init(reportsStrayLines: Bool = false) {
        self.reportsStrayLines = reportsStrayLines
        line.reserveCapacity(512)
        data.reserveCapacity(512)
    }

    /// Feeds the next bytes of the stream; returns the events they complete.
    public mutating func parse(_ bytes: [UInt8]) -> [SSEEvent] {
        var out: [SSEEvent] = []
        parse(bytes, into: &out)
        return out
    }

    /// As `parse(_:)`, appending to a caller-owned array (reused across chunks on the hot path).
    public mutating func parse(_ bytes: [UInt8], into out: inout [SSEEvent]) {
        bytes.withUnsafeBufferPointer { parse($0, into: &out) }
    }

    /// As `parse(_:into:)`, on bytes owned by the caller for the call (libcurl's read buffer).
    mutating func parse(_ bytes: UnsafeRawBufferPointer, into out: inout [SSEEvent]) {
        bytes.withMemoryRebound(to: UInt8.self) { parse($0, into: &out) }
    }

    private mutating func parse(_ buf: UnsafeBufferPointer<UInt8>, into out: inout [SSEEvent]) {
        var i = 0
        if !bomDone { i = skipBOM(buf) }
        while i < buf.count {
            let b = buf[i]
            if afterCR {
                afterCR = false
                if b == Self.lf { i += 1; continue }
            }
            // Copy the run up to the next line end in one go.
            var j = i
            while j < buf.count, buf[j] != Self.lf, buf[j] != Self.cr { j += 1 }
            line.append(contentsOf: UnsafeBufferPointer(rebasing: buf[i..<j]))
            guard j < buf.count else { break }
            afterCR = buf[j] == Self.cr
            endLine(into: &out)
            i = j + 1
        }
    }

    /// Consumes a leading BOM, even one split across chunks; returns where the content starts.
    private mutating func skipBOM(_ buf: UnsafeBufferPointer<UInt8>) -> Int {
        var i = 0
        while !bomDone, i < buf.count {
            if buf[i] == Self.bom[bomMatched] {
                bomMatched += 1; i += 1
                if bomMatched == 3 { bomDone = true }
            } else {
                // Not a BOM after all: the bytes matched so far are content.
                bomDone = true
                line.append(contentsOf: Self.bom[0..<bomMatched])
            }
        }
        return i
    }

    private mutating func endLine(into out: inout [SSEEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        if line.isEmpty { dispatch(into: &out); return }
        if line[0] == Self.colon { return }
        let colonAt = line.firstIndex(of: Self.colon) ?? line.count
        var valueStart = min(colonAt + 1, line.count)
        if valueStart < line.count, line[valueStart] == Self.space { valueStart += 1 }
        let name = line[0..<colonAt], value = line[valueStart...]
        if name.elementsEqual("data".utf8) {
            data.append(contentsOf: value); data.append(Self.lf)
        } else if name.elementsEqual("event".utf8) {
            eventType = String(decoding: value, as: UTF8.self)
        } else if name.elementsEqual("id".utf8) {
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        } else if name.elementsEqual("retry".utf8) {
            if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                retryMilliseconds = Int(String(decoding: value, as: UTF8.self))
            }
        } else if reportsStrayLines {
            out.append(SSEEvent(type: SSEEvent.strayLineType, data: String(decoding: line, as: UTF8.self),
                                lastEventID: lastEventID))
        }
    }

    private mutating func dispatch(into out: inout [SSEEvent]) {
        defer { data.removeAll(keepingCapacity: true); eventType = "" }
        guard !data.isEmpty else { return }
        let text = String(decoding: data[0..<(data.count - 1)], as: UTF8.self)
        out.append(SSEEvent(type: eventType.isEmpty ? "message" : eventType, data: text, lastEventID: lastEventID))
    }
}
