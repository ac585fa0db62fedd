import CLinux
import Glibc

/// Non-Sendable values carried through a hop back onto the loop thread, where alone they are used.
struct LoopBound<T>: @unchecked Sendable { let value: T }

extension Connection {
    /// Opens a client connection without blocking the loop (loop thread only). The handler hears
    /// `connectionDidActivate` once connected (and TLS-verified when `tls` is set), or
    /// `connectionDidClose(error:)` on failure. Addresses are tried in order; `timeout` covers
    /// the connect and the TLS handshake. Host names are resolved on a short helper thread.
    public static func connect(loop: EventLoop, host: String, port: UInt16, tls: TLSClientContext? = nil,
                               serverName: String? = nil, timeout: Duration,
                               configuration: ConnectionConfiguration = ConnectionConfiguration(),
                               handler: ConnectionHandler) {
        let attempt = ConnectAttempt(loop: loop, tls: tls, serverName: serverName ?? host, timeout: timeout,
                                     configuration: configuration, handler: handler)
        let numeric = SocketAddress.resolve(host, port, numericOnly: true)
        if !numeric.isEmpty { attempt.begin(numeric); return }
        let box = LoopBound(value: attempt)
        spawnDetached {
            let found = LoopBound(value: SocketAddress.resolve(host, port, numericOnly: false))
            loop.execute { box.value.begin(found.value) }
        }
    }
}

/// Runs `body` on a new detached thread (DNS lookups only: getaddrinfo blocks).
func spawnDetached(_ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    var t = pthread_t()
    let ctx = Unmanaged.passRetained(Box(body)).toOpaque()
    let r = pthread_create(&t, nil, { arg in
        Unmanaged<Box>.fromOpaque(arg!).takeRetainedValue().body()
        return nil
    }, ctx)
    if r == 0 { pthread_detach(t) } else { Unmanaged<Box>.fromOpaque(ctx).takeRetainedValue().body() }
}

/// One client connect in progress, address by address.
final class ConnectAttempt: Selectable {
    private let loop: EventLoop
    private let tls: TLSClientContext?
    private let serverName: String
    private let timeout: Duration
    private let configuration: ConnectionConfiguration
    private var handler: ConnectionHandler?
    private var remaining: [SocketAddress] = []
    private var fd: Int32 = -1
    private var peer = ""
    private var timer: TimerHandle?
    private var lastError = TransportError.invalidAddress("no address")

    init(loop: EventLoop, tls: TLSClientContext?, serverName: String, timeout: Duration,
         configuration: ConnectionConfiguration, handler: ConnectionHandler) {
        self.loop = loop; self.tls = tls; self.serverName = serverName; self.timeout = timeout
        self.configuration = configuration; self.handler = handler
    }

    func begin(_ addresses: [SocketAddress]) {
        remaining = addresses
        lastError = .invalidAddress(serverName)
        // The timeout covers every address and the TLS handshake; `Connection` inherits the rest.
        timer = loop.schedule(after: timeout) { [self] in
            timer = nil
            abandon(); fail(.connectTimeout)
        }
        next()
    }

    private func next() {
        while !remaining.isEmpty {
            let a = remaining.removeFirst()
            let s = socket(a.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard s >= 0 else { lastError = .system(call: "socket", errno: hb_errno()); continue }
            setNoDelay(s)
            setUserTimeout(s, configuration.userTimeout)
            if let src = configuration.sourceAddress, let local = SocketAddress.resolve(src, 0, numericOnly: true).first,
               local.withSockaddr({ bind(s, $0, $1) }) != 0 {
                lastError = .system(call: "bind", errno: hb_errno()); Glibc.close(s); continue
            }
            let r = a.withSockaddr { Glibc.connect(s, $0, $1) }
            if r < 0, hb_errno() != EINPROGRESS {
                lastError = .system(call: "connect", errno: hb_errno()); Glibc.close(s); continue
            }
            fd = s; peer = a.description
            do { try loop.register(s, self, events: Epoll.writable) } catch {
                lastError = error; Glibc.close(s); fd = -1; continue
            }
            return
        }
        fail(lastError)
    }

    func handle(events: UInt32) {
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
        if err != 0 {
            lastError = .system(call: "connect", errno: err)
            abandon(); next(); return
        }
        let s = fd
        loop.deregister(s)
        fd = -1
        let session: TLSSession?
        do { session = try tls?.makeSession(serverName: serverName) } catch {
            Glibc.close(s); fail(error); return
        }
        let conn = Connection(loop: loop, fd: s, peer: peer, tls: session, configuration: configuration)
        guard let h = handler else { Glibc.close(s); return }
        handler = nil
        if let t = timer {
            // The rest of the timeout bounds the TLS handshake.
            loop.cancel(t); timer = nil
            if session != nil { conn.armDeadline(after: timeout, error: .connectTimeout) }
        }
        conn.start(ActivationGuard(inner: h))
    }

    func loopDidStop() { abandon(); fail(.closed) }

    private func abandon() {
        if fd >= 0 { loop.deregister(fd); Glibc.close(fd); fd = -1 }
    }

    private func fail(_ e: TransportError) {
        if let t = timer { loop.cancel(t); timer = nil }
        guard let h = handler else { return }
        handler = nil
        // Report through a closed placeholder so the handler API stays one shape.
        let placeholder = Connection(loop: loop, fd: -1, peer: peer, tls: nil, configuration: configuration)
        placeholder.state = .closed
        h.connectionDidClose(placeholder, error: e)
    }
}

/// Disarms the handshake deadline once TLS completes, then gets out of the way.
private final class ActivationGuard: ConnectionHandler {
    let inner: ConnectionHandler
    init(inner: ConnectionHandler) { self.inner = inner }
    func connectionDidActivate(_ c: Connection) {
        c.disarmDeadline()
        c.handler = inner
        inner.connectionDidActivate(c)
    }
    func connection(_ c: Connection, didRead bytes: UnsafeRawBufferPointer) { inner.connection(c, didRead: bytes) }
    func connectionDidClose(_ c: Connection, error: TransportError?) { inner.connectionDidClose(c, error: error) }
}
