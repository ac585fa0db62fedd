/// Accepts connections (TLS optional), upgrades `GET <path>` to WebSocket and answers plain
/// endpoints (`/healthz`) with one small response each. Loop thread only.
public final class WebSocketServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var listener = TCPListener.Configuration()
        public var connection = ConnectionConfiguration()
        public var http = HTTPRequestParser.Limits()
        /// The upgrade path; any other path goes to the endpoint closure.
        public var path = "/v1/connect"
        /// TLS handshake plus the complete request head must arrive within this (slowloris cut-off).
        public var headerTimeout: Duration = .seconds(10)
        /// Largest message accepted; larger ones close with 1009.
        public var maxMessageSize = 2 * 1024 * 1024
        /// How long a close frame waits for the peer's answer.
        public var closeTimeout: Duration = .seconds(5)
        /// The header deadline while the listener is under pressure (many pending connections).
        public var pressureHeaderTimeout: Duration = .seconds(2)
        /// A data message begun must be complete within this (pongs are no progress); nil: no bound.
        public var messageTimeout: Duration?
        /// Proxy addresses whose PROXY line or `X-Forwarded-For` names the client.
        public var trustedProxies: Set<String> = []
        /// Trusted proxies send a PROXY protocol v1 line first (else `X-Forwarded-For` is read).
        public var proxyProtocol = false
        public init() {}
    }

    public let configuration: Configuration
    public let listener: TCPListener
    /// The bound port.
    public var port: UInt16 { listener.port }

    /// `onUpgrade` gets each new WebSocket before any of its messages (set its callbacks there).
    /// `endpoint` answers other requests; nil means 404.
    public init(loop: EventLoop, configuration: Configuration, tls: TLSServerContext? = nil,
                onUpgrade: @escaping (WebSocket) -> Void,
                endpoint: @escaping (HTTPRequest) -> HTTPResponse? = { _ in nil }) throws(TransportError) {
        self.configuration = configuration
        listener = try TCPListener(loop: loop, configuration: configuration.listener, tls: tls,
                                   connectionConfiguration: configuration.connection) { conn in
            conn.armDeadline(after: conn.underPressure ? min(configuration.pressureHeaderTimeout, configuration.headerTimeout)
                                                       : configuration.headerTimeout, error: .headerTimeout)
            return UpgradeSession(configuration: configuration, onUpgrade: onUpgrade, endpoint: endpoint)
        }
    }

    /// Stops accepting; open connections stay.
    public func close() { listener.close() }
}

/// A server connection before the upgrade: reads one request and either upgrades or answers.
final class UpgradeSession: ConnectionHandler {
    private let configuration: WebSocketServer.Configuration
    private let onUpgrade: (WebSocket) -> Void
    private let endpoint: (HTTPRequest) -> HTTPResponse?
    private var parser: HTTPRequestParser
    private var done = false
    /// Bytes of a PROXY line still being read (nil: none expected, or read).
    private var proxyBytes: [UInt8]?

    init(configuration: WebSocketServer.Configuration, onUpgrade: @escaping (WebSocket) -> Void,
         endpoint: @escaping (HTTPRequest) -> HTTPResponse?) {
        self.configuration = configuration; self.onUpgrade = onUpgrade; self.endpoint = endpoint
        parser = HTTPRequestParser(limits: configuration.http)
    }

    func connectionDidActivate(_ c: Connection) {
        if configuration.proxyProtocol && configuration.trustedProxies.contains(c.host) { proxyBytes = [] }
    }
    func connectionDidClose(_ c: Connection, error: TransportError?) {}

    func connection(_ c: Connection, didRead bytes: UnsafeRawBufferPointer) {
        guard !done else { return }
        guard proxyBytes == nil else { readProxyLine(c, bytes); return }
        parse(c, bytes)
    }

    private func readProxyLine(_ c: Connection, _ bytes: UnsafeRawBufferPointer) {
        proxyBytes!.append(contentsOf: bytes)
        switch ClientAddress.parseProxyLine(proxyBytes!) {
        case .needMore: return
        case .invalid: answer(c, HTTPResponse(status: .badRequest, text: "expected a PROXY protocol v1 line\n"))
        case .header(let host, let port, let length):
            let rest = Array(proxyBytes![length...])
            proxyBytes = nil
            if let host, !c.reassign(host: host, port: port) { answer(c, Self.tooMany); return }
            if !rest.isEmpty { rest.withUnsafeBytes { parse(c, $0) } }
        }
    }

    static let tooMany = HTTPResponse(status: HTTPStatus(code: 429, reason: "Too Many Requests"), text: "too many connections from this address\n")

    private func parse(_ c: Connection, _ bytes: UnsafeRawBufferPointer) {
        switch parser.parse(bytes) {
        case .needMore: return
        case .reject(let status): answer(c, HTTPResponse(status: status))
        case .request(let r):
            c.disarmDeadline()
            if !configuration.proxyProtocol, configuration.trustedProxies.contains(c.host),
               let client = ClientAddress.forwardedFor(r.headers.values("X-Forwarded-For"), trusted: configuration.trustedProxies),
               !c.reassign(host: client) {
                answer(c, Self.tooMany)
                return
            }
            guard r.path == configuration.path else {
                answer(c, endpoint(r) ?? HTTPResponse(status: .notFound, text: "not found\n"))
                return
            }
            switch WebSocketHandshake.serverResponse(to: r) {
            case .refuse(let resp): answer(c, resp)
            case .accept(let resp):
                done = true
                c.send(resp.encoded())
                let ws = WebSocket(connection: c, role: .server, request: r,
                                   maxMessageSize: configuration.maxMessageSize, closeTimeout: configuration.closeTimeout,
                                   messageTimeout: configuration.messageTimeout)
                c.handler = ws
                onUpgrade(ws)
                let rest = parser.takeRemainder()
                if !rest.isEmpty { rest.withUnsafeBytes { ws.receive($0) } }
            }
        }
    }

    private func answer(_ c: Connection, _ r: HTTPResponse) {
        done = true
        c.disarmDeadline()
        c.send(r.encoded())
        c.close()
    }
}
