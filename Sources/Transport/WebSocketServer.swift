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
            conn.armDeadline(after: configuration.headerTimeout, error: .headerTimeout)
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

    init(configuration: WebSocketServer.Configuration, onUpgrade: @escaping (WebSocket) -> Void,
         endpoint: @escaping (HTTPRequest) -> HTTPResponse?) {
        self.configuration = configuration; self.onUpgrade = onUpgrade; self.endpoint = endpoint
        parser = HTTPRequestParser(limits: configuration.http)
    }

    func connectionDidActivate(_ c: Connection) {}
    func connectionDidClose(_ c: Connection, error: TransportError?) {}

    func connection(_ c: Connection, didRead bytes: UnsafeRawBufferPointer) {
        guard !done else { return }
        switch parser.parse(bytes) {
        case .needMore: return
        case .reject(let status): answer(c, HTTPResponse(status: status))
        case .request(let r):
            c.disarmDeadline()
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
                                   maxMessageSize: configuration.maxMessageSize, closeTimeout: configuration.closeTimeout)
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
