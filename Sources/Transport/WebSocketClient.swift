/// Opens a client WebSocket over the loop: connect, optional TLS, upgrade. The agents' link to the relay.
public enum WebSocketClient {
    public struct Configuration: Sendable {
        public var host: String
        public var port: UInt16
        public var path = "/v1/connect"
        /// nil: plain TCP.
        public var tls: TLSClientContext?
        /// SNI and certificate host name; defaults to `host`.
        public var serverName: String?
        /// Extra request headers (e.g. an Origin the relay checks).
        public var headers = HTTPHeaders()
        /// Covers TCP connect, TLS handshake and the upgrade answer.
        public var timeout: Duration = .seconds(10)
        public var maxMessageSize = 2 * 1024 * 1024
        public var closeTimeout: Duration = .seconds(5)
        public var connection = ConnectionConfiguration()

        public init(host: String, port: UInt16, tls: TLSClientContext? = nil) {
            self.host = host; self.port = port; self.tls = tls
        }
    }

    /// Calls `completion` once on the loop thread with the open WebSocket or the failure.
    /// Callable from any thread.
    public static func connect(loop: EventLoop, configuration: Configuration,
                               completion: @escaping @Sendable (Result<WebSocket, TransportError>) -> Void) {
        loop.execute {
            let session = ClientUpgradeSession(configuration: configuration, completion: completion)
            Connection.connect(loop: loop, host: configuration.host, port: configuration.port, tls: configuration.tls,
                               serverName: configuration.serverName, timeout: configuration.timeout,
                               configuration: configuration.connection, handler: session)
        }
    }
}

/// A client connection before the upgrade completes.
final class ClientUpgradeSession: ConnectionHandler {
    private let configuration: WebSocketClient.Configuration
    private var completion: ((Result<WebSocket, TransportError>) -> Void)?
    private let handshake: WebSocketClientHandshake
    private var parser = HTTPResponseParser()

    init(configuration: WebSocketClient.Configuration, completion: @escaping (Result<WebSocket, TransportError>) -> Void) {
        self.configuration = configuration
        self.completion = completion
        let defaultPort: UInt16 = configuration.tls == nil ? 80 : 443
        let name = configuration.serverName ?? configuration.host
        let hostName = name.contains(":") ? "[\(name)]" : name
        let host = configuration.port == defaultPort ? hostName : "\(hostName):\(configuration.port)"
        handshake = WebSocketClientHandshake(host: host, path: configuration.path, headers: configuration.headers)
    }

    func connectionDidActivate(_ c: Connection) {
        c.armDeadline(after: configuration.timeout, error: .handshake("no answer to the upgrade request"))
        c.send(handshake.request)
    }

    func connection(_ c: Connection, didRead bytes: UnsafeRawBufferPointer) {
        switch parser.parse(bytes) {
        case .needMore: return
        case .invalid: fail(c, .handshake("malformed HTTP response"))
        case .head(let head):
            if let e = handshake.validate(head) { fail(c, e); return }
            c.disarmDeadline()
            let ws = WebSocket(connection: c, role: .client, request: nil,
                               maxMessageSize: configuration.maxMessageSize, closeTimeout: configuration.closeTimeout)
            c.handler = ws
            let done = completion
            completion = nil
            done?(.success(ws))
            let rest = parser.remainder
            if !rest.isEmpty, c.isOpen { rest.withUnsafeBytes { ws.receive($0) } }
        }
    }

    func connectionDidClose(_ c: Connection, error: TransportError?) {
        let done = completion
        completion = nil
        done?(.failure(error ?? .closed))
    }

    private func fail(_ c: Connection, _ e: TransportError) {
        let done = completion
        completion = nil
        c.close(flush: false)
        done?(.failure(e))
    }
}
