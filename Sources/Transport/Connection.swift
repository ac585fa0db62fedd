import Basics
import CLinux
import Glibc

/// A non-blocking TCP connection, optionally under TLS, owned by one loop (loop thread only).
///
/// Reads go through the loop's shared buffer; the send queue holds the caller's arrays and slices
/// themselves (written with writev, no copy for plain TCP) and is released when it empties.
public final class Connection: @unchecked Sendable {
    enum State { case idle, handshaking, open, closing, closed }

    public let loop: EventLoop
    /// "address:port" of the peer, for logs (the client's, once a trusted proxy named it).
    public internal(set) var peer: String
    /// The client address without the port: what per-address limits count.
    public internal(set) var host: String
    /// Not yet `markEstablished` (counted against the per-address pending limit).
    var pending = true
    weak var hosts: HostTable?
    public let configuration: ConnectionConfiguration
    let fd: Int32
    var tls: TLSSession?
    var handler: ConnectionHandler?
    var state = State.idle
    var interest: UInt32 = 0
    var readPaused = false

    // Send queue (ConnectionSend.swift).
    var queue: [ArraySlice<UInt8>] = []
    var queueHead = 0
    var sendOffset = 0
    /// Bytes accepted by `send` and not yet written to the socket (ciphertext under TLS).
    public internal(set) var queuedBytes = 0
    var aboveHighWater = false
    var lastWriteProgress: UInt64 = 0
    var writeTimer: TimerHandle?

    var lastRead: UInt64 = 0
    var idleTimer: TimerHandle?
    var deadlineTimer: TimerHandle?
    /// Told when the connection is finished (the listener counts live connections).
    var onFinish: (() -> Void)?

    init(loop: EventLoop, fd: Int32, peer: String, tls: TLSSession?, configuration: ConnectionConfiguration) {
        self.loop = loop; self.fd = fd; self.peer = peer; self.tls = tls; self.configuration = configuration
        host = Connection.hostPart(of: peer)
        tls?.setOutput(loop.tlsOutput)
        tls?.ciphers = loop.aead
    }

    /// Whether the connection can still send.
    public var isOpen: Bool { state == .open || state == .handshaking }

    /// Registers with the loop and starts the TLS handshake if any. Loop thread only.
    func start(_ handler: ConnectionHandler) {
        self.handler = handler
        interest = Epoll.readable | Epoll.readHangup
        do { try loop.register(fd, self, events: interest) } catch {
            Glibc.close(fd); state = .closed; onFinish?(); onFinish = nil
            handler.connectionDidClose(self, error: error); self.handler = nil
            return
        }
        lastRead = monotonicNanos()
        armIdleTimer()
        if tls == nil { state = .open; handler.connectionDidActivate(self); return }
        state = .handshaking
        driveHandshake() // a client's ClientHello goes out now
    }

    /// Closes after flushing what is queued (bounded by the write timeout); `flush: false` drops it.
    /// The handler then hears `connectionDidClose(error: nil)`.
    public func close(flush: Bool = true) {
        guard state != .closed, state != .closing else { return }
        guard flush, state == .open else { finish(nil); return }
        if let tls { tls.shutdown(); enqueueCiphertext(tls) }
        state = .closing
        updateInterest()
        if queuedBytes == 0 { finish(nil) } else { armWriteTimer() }
    }

    /// Stops reading (the relay's back-pressure on a fast sender); `resumeReading` restarts.
    public func pauseReading() { readPaused = true; updateInterest() }
    public func resumeReading() { readPaused = false; updateInterest() }

    /// Closes with `error` unless `disarmDeadline` is called first (e.g. request head or handshake
    /// deadlines: slow senders are cut off here, not by the parser).
    public func armDeadline(after delay: Duration, error: TransportError) {
        disarmDeadline()
        deadlineTimer = loop.schedule(after: delay) { [weak self] in
            self?.deadlineTimer = nil
            self?.finish(error)
        }
    }

    public func disarmDeadline() {
        if let t = deadlineTimer { loop.cancel(t); deadlineTimer = nil }
    }

    /// Releases everything and tells the handler, exactly once.
    func finish(_ error: TransportError?) {
        guard state != .closed else { return }
        state = .closed
        for t in [writeTimer, idleTimer, deadlineTimer] { if let t { loop.cancel(t) } }
        writeTimer = nil; idleTimer = nil; deadlineTimer = nil
        loop.deregister(fd)
        Glibc.close(fd)
        tls = nil
        queue = []; queueHead = 0; queuedBytes = 0
        onFinish?(); onFinish = nil
        let h = handler
        handler = nil
        h?.connectionDidClose(self, error: error)
    }

    /// Reads only stamp `lastRead`; the timer checks it when due and re-arms for the rest,
    /// so a busy connection never touches the timer heap.
    private func armIdleTimer() {
        guard let idle = configuration.idleTimeout?.nanoseconds, state != .closed else { return }
        let elapsed = monotonicNanos() &- lastRead
        if elapsed >= idle { finish(.idleTimeout); return }
        idleTimer = loop.schedule(after: .nanoseconds(Int64(idle - elapsed))) { [weak self] in
            self?.idleTimer = nil
            self?.armIdleTimer()
        }
    }
}

extension Connection: Selectable {
    func handle(events: UInt32) {
        if events & (Epoll.readable | Epoll.error | Epoll.readHangup) != 0, state != .closed, !readPaused || events & Epoll.error != 0 {
            readOnce()
        }
        if events & Epoll.writable != 0, state != .closed { flush() }
    }

    func loopDidStop() { finish(.closed) }

    /// One read per readiness (level-triggered: the rest waits for the next turn, fairly).
    private func readOnce() {
        let buf = loop.readBuffer
        let n = read(fd, buf.baseAddress, buf.count)
        if n == 0 { finish(.peerClosed); return }
        if n < 0 {
            let e = hb_errno()
            if e != EAGAIN && e != EWOULDBLOCK && e != EINTR { finish(e == ECONNRESET ? .peerClosed : .system(call: "read", errno: e)) }
            return
        }
        lastRead = monotonicNanos()
        guard let tls else {
            handler?.connection(self, didRead: UnsafeRawBufferPointer(rebasing: buf[0..<n]))
            return
        }
        // OpenSSL reads the ciphertext where it lies; the plaintext goes to a buffer of its own.
        tls.withInput(UnsafeRawBufferPointer(rebasing: buf[0..<n])) {
            if state == .handshaking { driveHandshake() }
            if state == .open || state == .closing { readPlaintext(tls) }
        }
    }

    /// Plaintext of several records is gathered before the handler sees it: a 16 KiB message
    /// spans two records, and handed over one record at a time its first part would be copied
    /// into the WebSocket codec's buffer to wait for the rest.
    private func readPlaintext(_ tls: TLSSession) {
        let buf = loop.plaintextBuffer
        var filled = 0
        func deliver() {
            enqueueCiphertext(tls) // the loop's output is shared: empty before the handler sends elsewhere
            if filled > 0, state == .open { handler?.connection(self, didRead: UnsafeRawBufferPointer(rebasing: buf[0..<filled])) }
            filled = 0
        }
        while state == .open || state == .closing {
            switch tls.read(into: UnsafeMutableRawBufferPointer(rebasing: buf[filled...]), drain: { enqueueCiphertext(tls) }) {
            case .bytes(let m):
                filled += m
                if buf.count - filled < TLSSession.readRoom { deliver() }
            case .needMore:
                deliver()
                enqueueCiphertext(tls); flush()
                return
            case .closed: deliver(); finish(.peerClosed); return
            case .failed(let e): enqueueCiphertext(tls); finish(e); return // the alert, if any, goes out first
            }
        }
    }

    func driveHandshake() {
        guard let tls else { return }
        let p = tls.handshake(drain: { enqueueCiphertext(tls) })
        enqueueCiphertext(tls)
        flush()
        guard state == .handshaking else { return }
        switch p {
        case .inProgress: return
        case .failed(let e): finish(e)
        case .done:
            state = .open
            handler?.connectionDidActivate(self)
        }
    }
}
