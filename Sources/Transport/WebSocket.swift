/// A complete WebSocket message.
public enum WebSocketMessage: Equatable, Sendable {
    case binary([UInt8])
    case text(String)
}

/// An open WebSocket, server or client side, on one loop.
///
/// Callbacks run on the loop thread. `send`, `ping` and `close` may be called from any thread
/// (they hop to the loop when needed); everything else is loop thread only.
public final class WebSocket: @unchecked Sendable {
    public let connection: Connection
    public let role: WebSocketRole
    /// Server side: the upgrade request (path, query, headers). Client side: nil.
    public let request: HTTPRequest?

    /// Each complete message (fragments reassembled, text validated).
    public var onMessage: ((WebSocket, WebSocketMessage) -> Void)?
    public var onPong: ((WebSocket, [UInt8]) -> Void)?
    /// Queued bytes passed the connection's high-water mark: the receiver is slow.
    public var onHighWater: ((WebSocket) -> Void)?
    public var onDrain: ((WebSocket) -> Void)?
    /// Once, when the TCP connection is gone: the close code of the first close frame sent or
    /// received (`.abnormal` when the connection dropped without one) and its reason.
    public var onClose: ((WebSocket, WebSocketCloseCode, String) -> Void)?

    /// A pure state machine (its methods call out to nothing): no access to it can overlap
    /// another, so the runtime exclusivity check, twice per frame read, is left out.
    @exclusivity(unchecked) private var codec: WebSocketCodec
    private let closeTimeout: Duration
    private var closeSent = false
    private var closeInfo: (WebSocketCloseCode, String)?
    /// A data message begun must be complete within this; control frames are no progress.
    private let messageTimeout: Duration?
    private var messageTimer: TimerHandle?

    init(connection: Connection, role: WebSocketRole, request: HTTPRequest?, maxMessageSize: Int, closeTimeout: Duration,
         messageTimeout: Duration? = nil) {
        self.connection = connection; self.role = role; self.request = request
        self.closeTimeout = closeTimeout
        self.messageTimeout = messageTimeout
        codec = WebSocketCodec(role: role, maxMessageSize: maxMessageSize)
    }

    /// Bytes waiting to be written: the relay's measure of a slow receiver.
    public var queuedBytes: Int { connection.queuedBytes }

    public func send(binary: [UInt8]) { sendFrame(.binary, binary) }
    /// One binary message of `head` then `tail`, without joining them first: a server writes the
    /// frame header with `head` and then `tail` itself (the relay forwards a slice of a received
    /// frame this way). A client masks, so it joins them.
    public func send(binary head: [UInt8], _ tail: ArraySlice<UInt8>) {
        guard role == .server else { sendFrame(.binary, head + tail); return }
        // On the loop (the relay's every forward) no closure is made: it would be an allocation per frame.
        guard connection.loop.inLoop else { connection.loop.execute { self.send(binary: head, tail) }; return }
        guard !closeSent else { return }
        var first: [UInt8] = []
        first.reserveCapacity(WebSocketFrameHeader.maxSize + head.count)
        WebSocketFrameHeader(fin: true, opcode: .binary, mask: nil, length: head.count + tail.count).encode(into: &first)
        first += head
        connection.send(first[...], tail)
    }
    /// As `send(binary:_:)` with a head of `headCount` bytes that `writeHead` writes into a
    /// buffer on the stack, after the frame header: a forward that the socket takes at once
    /// allocates nothing (the relay's `receive` header this way).
    public func send(binary tail: ArraySlice<UInt8>, headCount: Int, head writeHead: (UnsafeMutableRawBufferPointer) -> Void) {
        guard role == .server, connection.loop.inLoop else {
            var head = [UInt8](repeating: 0, count: headCount)
            head.withUnsafeMutableBytes { writeHead($0) }
            send(binary: head, tail)
            return
        }
        guard !closeSent else { return }
        let header = WebSocketFrameHeader(fin: true, opcode: .binary, mask: nil, length: headCount + tail.count)
        withUnsafeTemporaryAllocation(byteCount: WebSocketFrameHeader.maxSize + headCount, alignment: 8) { buf in
            let at = header.encode(to: buf)
            writeHead(UnsafeMutableRawBufferPointer(rebasing: buf[at..<(at + headCount)]))
            connection.send(head: UnsafeRawBufferPointer(rebasing: buf[0..<(at + headCount)]), tail: tail)
        }
    }
    public func send(text: String) { sendFrame(.text, Array(text.utf8)) }
    /// Payload at most 125 bytes (longer is cut).
    public func ping(_ payload: [UInt8] = []) { sendFrame(.ping, Array(payload.prefix(125))) }

    /// Starts the closing handshake; the peer has `closeTimeout` to answer before the TCP connection is dropped.
    public func close(code: WebSocketCloseCode = .normal, reason: String = "") {
        onLoop { ws in
            guard !ws.closeSent, ws.connection.isOpen else { return }
            ws.sendClose(code, reason)
            ws.connection.loop.schedule(after: ws.closeTimeout) { [weak ws] in ws?.connection.close(flush: false) }
        }
    }

    private func sendFrame(_ op: WebSocketOpcode, _ payload: [UInt8]) {
        guard connection.loop.inLoop else { connection.loop.execute { self.sendFrame(op, payload) }; return }
        guard !closeSent else { return }
        connection.send(WebSocketCodec.encode(op, payload, role: role))
    }

    private func onLoop(_ body: @escaping @Sendable (WebSocket) -> Void) {
        if connection.loop.inLoop { body(self) } else { connection.loop.execute { body(self) } }
    }

    private func sendClose(_ code: WebSocketCloseCode, _ reason: String) {
        closeSent = true
        if closeInfo == nil { closeInfo = (code, reason) }
        let payload = code == .noStatus ? [] : WebSocketCodec.closePayload(code, reason: reason)
        connection.send(WebSocketCodec.encode(.close, payload, role: role))
    }

    /// Feeds bytes received with or after the upgrade.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        var input = bytes
        while connection.isOpen {
            switch codec.next(from: &input) {
            case .needMore: watchPartialMessage(); return
            case .binary(let b): messageDone(); onMessage?(self, .binary(b))
            case .text(let t): messageDone(); onMessage?(self, .text(t))
            case .ping(let p): if !closeSent { connection.send(WebSocketCodec.encode(.pong, p, role: role)) }
            case .pong(let p): onPong?(self, p)
            case .close(let code, let reason):
                if closeInfo == nil { closeInfo = (code, reason) }
                if !closeSent { sendClose(code, "") } // echo the code (RFC 6455 section 5.5.1)
                connection.close()
                return
            case .fail(let code, let why):
                sendClose(code, why)
                connection.close()
                return
            }
        }
    }
}

extension WebSocket {
    /// Bytes of an unfinished frame or message are held: the clock runs until a data message
    /// completes (a pong or ping in between does not stop it).
    private func watchPartialMessage() {
        guard let messageTimeout, messageTimer == nil, codec.bufferedBytes > 0 else { return }
        messageTimer = connection.loop.schedule(after: messageTimeout) { [weak self] in
            guard let self, self.connection.isOpen else { return }
            self.messageTimer = nil
            self.sendClose(.policyViolation, "message not completed in time")
            self.connection.close()
        }
    }

    private func messageDone() {
        if let t = messageTimer { connection.loop.cancel(t); messageTimer = nil }
    }
}

extension WebSocket: ConnectionHandler {
    public func connectionDidActivate(_ connection: Connection) {}
    public func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) { receive(bytes) }
    public func connectionDidReachHighWater(_ connection: Connection) { onHighWater?(self) }
    public func connectionDidDrain(_ connection: Connection) { onDrain?(self) }
    public func connectionDidClose(_ connection: Connection, error: TransportError?) {
        messageDone()
        let (code, reason) = closeInfo ?? (.abnormal, error?.description ?? "closed")
        let h = onClose
        onMessage = nil; onPong = nil; onHighWater = nil; onDrain = nil; onClose = nil // break cycles
        h?(self, code, reason)
    }
}
