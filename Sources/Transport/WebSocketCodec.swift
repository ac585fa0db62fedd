/// RFC 6455 framing as a pure state machine: feed received bytes in any split, pull events.
///
/// After `.close` or `.fail` the codec is finished and ignores further input. On `.fail`, the
/// owner sends a close frame with the given code and drops the connection.
public struct WebSocketCodec {
    public enum Event: Equatable, Sendable {
        case needMore
        case binary([UInt8])
        case text(String)
        case ping([UInt8])
        case pong([UInt8])
        /// The peer's close frame: its code (`.noStatus` if it sent none) and reason.
        case close(WebSocketCloseCode, String)
        /// The peer broke the protocol; answer with this close code and drop the connection.
        case fail(WebSocketCloseCode, String)
    }

    public let role: WebSocketRole
    /// Largest reassembled message, in payload bytes. Larger ones fail with 1009.
    public let maxMessageSize: Int

    private var buffer: [UInt8] = []
    private var offset = 0
    private var fragments: [UInt8] = []
    private var fragmentOpcode: WebSocketOpcode?
    private var finished = false

    public init(role: WebSocketRole, maxMessageSize: Int) {
        self.role = role
        self.maxMessageSize = maxMessageSize
    }

    /// Bytes held for a partial frame or message (zero and unallocated when idle).
    public var bufferedBytes: Int { buffer.count - offset + fragments.count }

    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard !finished, bytes.count > 0 else { return }
        if offset > 0, offset == buffer.count { buffer.removeAll(keepingCapacity: true); offset = 0 }
        buffer.append(contentsOf: bytes)
    }

    public mutating func feed(_ bytes: [UInt8]) { bytes.withUnsafeBytes { feed($0) } }

    /// The next complete event, or `.needMore` when the buffered bytes end mid-frame.
    public mutating func next() -> Event {
        while !finished {
            let decoded = buffer.withUnsafeBufferPointer { p in
                WebSocketHeaderDecoder.decode(UnsafeBufferPointer(rebasing: p[offset...]), role: role)
            }
            switch decoded {
            case .needMore:
                releaseIfIdle()
                return .needMore
            case .invalid(let why):
                return fail(.protocolError, why)
            case .header(let h, let size):
                if let e = checkSequence(h) { return e }
                guard buffer.count - offset - size >= h.length else { return .needMore }
                let start = offset + size
                let payload = buffer.withUnsafeBufferPointer { p in
                    unmaskedCopy(UnsafeBufferPointer(rebasing: p[start..<(start + h.length)]), h.mask)
                }
                offset = start + h.length
                let e = deliver(h, payload)
                releaseIfIdle()
                // nil: a non-final fragment was stored; look at the next frame.
                if let e { return e }
            }
        }
        return .needMore
    }

    /// The next event with `input` parsed in place: whole frames are copied once, straight from
    /// the caller's bytes into their payload (unmasked on the way), and only the tail of a frame
    /// that does not end in `input` is buffered. Consumed bytes are cut from the front of `input`.
    public mutating func next(from input: inout UnsafeRawBufferPointer) -> Event {
        while true {
            if finished { input = UnsafeRawBufferPointer(start: nil, count: 0); return .needMore }
            if buffer.count > offset {
                // A frame begun in an earlier read: complete it from `input`, then parse in place again.
                topUp(&input)
                let e = next()
                if case .needMore = e, !input.isEmpty { continue }
                return e
            }
            guard !input.isEmpty else { releaseIfIdle(); return .needMore }
            let p = input.assumingMemoryBound(to: UInt8.self)
            switch WebSocketHeaderDecoder.decode(p, role: role) {
            case .needMore:
                stash(&input)
                return .needMore
            case .invalid(let why):
                return fail(.protocolError, why)
            case .header(let h, let size):
                if let e = checkSequence(h) { return e }
                guard p.count - size >= h.length else { stash(&input); return .needMore }
                let payload = unmaskedCopy(UnsafeBufferPointer(rebasing: p[size..<(size + h.length)]), h.mask)
                input = UnsafeRawBufferPointer(rebasing: input[(size + h.length)...])
                if let e = deliver(h, payload) { return e }
            }
        }
    }

    /// Moves into the buffer only what the buffered frame still lacks (a header: up to its
    /// largest size), so the frames after it are parsed in place.
    private mutating func topUp(_ input: inout UnsafeRawBufferPointer) {
        while buffer.count > offset, !input.isEmpty {
            let held = buffer.count - offset
            let decoded = buffer.withUnsafeBufferPointer { p in
                WebSocketHeaderDecoder.decode(UnsafeBufferPointer(rebasing: p[offset...]), role: role)
            }
            var want: Int
            switch decoded {
            case .invalid: return
            case .needMore: want = WebSocketFrameHeader.maxSize - held
            case .header(let h, let size): want = size + h.length - held
            }
            if want <= 0 { return }
            want = min(want, input.count)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[..<want]))
            input = UnsafeRawBufferPointer(rebasing: input[want...])
            if case .header = decoded { return }
        }
    }

    private mutating func stash(_ input: inout UnsafeRawBufferPointer) {
        feed(input)
        input = UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// Fragmentation order and size rules, checked from the header before the payload is buffered.
    private mutating func checkSequence(_ h: WebSocketFrameHeader) -> Event? {
        if h.opcode.isControl { return nil }
        if h.opcode == .continuation {
            if fragmentOpcode == nil { return fail(.protocolError, "continuation without a message") }
        } else if fragmentOpcode != nil {
            return fail(.protocolError, "new message inside a fragmented one")
        }
        if h.length > maxMessageSize - fragments.count { return fail(.messageTooBig, "message too big") }
        return nil
    }

    private mutating func deliver(_ h: WebSocketFrameHeader, _ payload: [UInt8]) -> Event? {
        switch h.opcode {
        case .ping: return .ping(payload)
        case .pong: return .pong(payload)
        case .close: return peerClose(payload)
        case .text, .binary, .continuation:
            if !h.fin {
                if h.opcode != .continuation { fragmentOpcode = h.opcode }
                fragments += payload
                return nil
            }
            var message = payload
            var opcode = h.opcode
            if let f = fragmentOpcode {
                message = fragments + payload
                opcode = f
                fragments = []
                fragmentOpcode = nil
            }
            if opcode == .binary { return .binary(message) }
            guard isValidUTF8(message) else { return fail(.invalidPayload, "text not UTF-8") }
            return .text(String(decoding: message, as: UTF8.self))
        }
    }

    private mutating func peerClose(_ p: [UInt8]) -> Event {
        if p.isEmpty { return finish(.close(.noStatus, "")) }
        if p.count == 1 { return fail(.protocolError, "close payload of one byte") }
        let code = WebSocketCloseCode(UInt16(p[0]) << 8 | UInt16(p[1]))
        if !code.isValidOnWire { return fail(.protocolError, "invalid close code") }
        let reason = p[2...]
        guard isValidUTF8(reason) else { return fail(.invalidPayload, "close reason not UTF-8") }
        return finish(.close(code, String(decoding: reason, as: UTF8.self)))
    }

    private mutating func fail(_ code: WebSocketCloseCode, _ why: String) -> Event {
        finish(.fail(code, why))
    }

    private mutating func finish(_ e: Event) -> Event {
        finished = true
        buffer = []; offset = 0; fragments = []
        return e
    }

    /// Idle connections hold no buffer: thousands of them must cost almost nothing.
    private mutating func releaseIfIdle() {
        if offset == buffer.count { buffer = []; offset = 0 }
        else if offset > 64 * 1024 && offset * 2 > buffer.count {
            buffer.removeSubrange(0..<offset); offset = 0
        }
    }
}
