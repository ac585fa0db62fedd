import Basics
import CLinux
import Glibc

/// A listening TCP socket that turns accepted sockets into `Connection`s (loop thread only).
///
/// Limits: at `maxConnections` a new socket is accepted and closed at once (the client sees the
/// refusal instead of waiting in the backlog); accepts are capped per loop turn (fairness) and
/// per second (a token bucket against connection bursts); EMFILE/ENFILE pause accepting for
/// `exhaustionBackoff` instead of spinning on a socket that stays readable.
public final class TCPListener: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port; read the result from `port`.
        public var port: UInt16 = 0
        public var backlog: Int32 = 1024
        public var maxConnections = 10_000
        public var maxAcceptsPerTurn = 64
        public var maxAcceptsPerSecond = 2_000
        public var exhaustionBackoff: Duration = .milliseconds(100)
        /// Per client address: open and pending connections, accept bucket, eviction.
        public var hosts = HostLimits()
        /// Addresses exempt from per-address limits at accept (trusted proxies: their clients'
        /// addresses are counted once the proxy names them, see `Connection.reassign`).
        public var exemptHosts: Set<String> = []
        public init() {}
    }

    public let loop: EventLoop
    public let configuration: Configuration
    /// The bound port (useful with port 0).
    public let port: UInt16
    /// Live connections made by this listener.
    public private(set) var connectionCount = 0
    /// Sockets refused because `maxConnections` was reached.
    public private(set) var refusedCount = 0
    /// Sockets refused by a per-address limit.
    public var refusedPerHostCount: Int { hosts.refused }
    /// Pending connections closed to make room for newer ones.
    public var evictedCount: Int { hosts.evicted }
    /// Connections not yet established.
    public var pendingCount: Int { hosts.pendingTotal }
    let hosts: HostTable

    private let fd: Int32
    private let tls: TLSServerContext?
    private let connectionConfiguration: ConnectionConfiguration
    private let onAccept: (Connection) -> ConnectionHandler
    private var tokens: Double
    private var lastRefill = monotonicNanos()
    private var paused = false
    private var closed = false

    /// Binds and listens. `onAccept` returns the handler of each new connection.
    public init(loop: EventLoop, configuration: Configuration, tls: TLSServerContext? = nil,
                connectionConfiguration: ConnectionConfiguration = ConnectionConfiguration(),
                onAccept: @escaping (Connection) -> ConnectionHandler) throws(TransportError) {
        guard let addr = SocketAddress.resolve(configuration.host, configuration.port, numericOnly: true).first else {
            throw .invalidAddress(configuration.host)
        }
        let s = socket(addr.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard s >= 0 else { throw .system(call: "socket", errno: hb_errno()) }
        var one: Int32 = 1
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        do {
            try sys("bind", addr.withSockaddr { bind(s, $0, $1) })
            try sys("listen", listen(s, configuration.backlog))
        } catch { Glibc.close(s); throw error }
        fd = s
        port = SocketAddress(fd: s, peer: false).port
        self.loop = loop; self.configuration = configuration; self.tls = tls
        self.connectionConfiguration = connectionConfiguration; self.onAccept = onAccept
        tokens = Double(configuration.maxAcceptsPerSecond)
        hosts = HostTable(limits: configuration.hosts)
        do { try loop.register(s, self, events: Epoll.readable) } catch { Glibc.close(s); throw error }
    }

    /// Stops listening; existing connections stay up.
    public func close() {
        guard !closed else { return }
        closed = true
        loop.deregister(fd)
        Glibc.close(fd)
    }

    private func refill() {
        let now = monotonicNanos()
        let rate = Double(configuration.maxAcceptsPerSecond)
        tokens = min(rate, tokens + Double(now &- lastRefill) / 1e9 * rate)
        lastRefill = now
    }

    private func pause(for delay: Duration) {
        guard !paused else { return }
        paused = true
        loop.modify(fd, events: 0)
        loop.schedule(after: delay) { [weak self] in
            guard let self, !self.closed else { return }
            self.paused = false
            self.loop.modify(self.fd, events: Epoll.readable)
        }
    }

    private func acceptOne() -> Bool {
        var peer = SocketAddress()
        peer.length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let c = withUnsafeMutablePointer(to: &peer.storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                accept4(fd, $0, &peer.length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            }
        }
        if c < 0 {
            switch hb_errno() {
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: pause(for: configuration.exhaustionBackoff)
            default: break // EAGAIN, or an error of that one pending connection (ECONNABORTED...)
            }
            return false
        }
        tokens -= 1
        if connectionCount >= configuration.maxConnections {
            refusedCount += 1
            Glibc.close(c)
            return true
        }
        let address = peer.description, host = Connection.hostPart(of: address)
        guard hosts.admit(host, exempt: configuration.exemptHosts.contains(host), now: monotonicNanos()) else {
            // Closed before any work: it costs no token, so one address flooding past its own
            // limits does not spend the accept rate that other addresses' devices need.
            tokens += 1
            Glibc.close(c)
            return true
        }
        setNoDelay(c)
        setUserTimeout(c, connectionConfiguration.userTimeout)
        let session: TLSSession?
        do { session = try tls?.makeSession() } catch { Glibc.close(c); return true }
        let conn = Connection(loop: loop, fd: c, peer: address, tls: session, configuration: connectionConfiguration)
        connectionCount += 1
        conn.hosts = hosts
        hosts.opened(conn)
        conn.onFinish = { [weak self, unowned conn] in
            self?.connectionCount -= 1
            self?.hosts.closed(conn)
        }
        conn.start(onAccept(conn))
        return true
    }
}

extension TCPListener: Selectable {
    func handle(events: UInt32) {
        refill()
        var n = 0
        while n < configuration.maxAcceptsPerTurn, !closed, !paused {
            if tokens < 1 {
                // Resume when one token is back.
                pause(for: .nanoseconds(Int64(1e9 / Double(max(1, configuration.maxAcceptsPerSecond)))))
                return
            }
            guard acceptOne() else { return }
            n += 1
        }
    }

    func loopDidStop() { close() }
}
