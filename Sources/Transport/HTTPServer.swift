/// A plain HTTP/1.1 server for small APIs (`guest serve`): one request per connection, answered
/// whole or streamed (SSE, NDJSON) through an `HTTPResponder`. Loop thread only; the responder
/// itself may be used from any thread.
///
/// Every answer carries `Connection: close`: clients reconnect per request, which keeps the
/// server free of pipelining and keep-alive state (loopback connections are cheap).
public final class HTTPServer: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var listener = TCPListener.Configuration()
        public var connection = ConnectionConfiguration()
        /// Request limits. The body limit is raised to 4 MiB here: chat requests carry whole
        /// conversations.
        public var http: HTTPRequestParser.Limits = {
            var l = HTTPRequestParser.Limits()
            l.maxBodyBytes = 4 * 1024 * 1024
            return l
        }()
        /// The complete request (head and body) must arrive within this (slowloris cut-off).
        public var requestTimeout: Duration = .seconds(30)
        public init() {}
    }

    public let configuration: Configuration
    public let listener: TCPListener
    /// The bound port.
    public var port: UInt16 { listener.port }

    /// `handler` gets each complete request on the loop thread, with the responder that answers
    /// it. A request the parser refuses is answered (400, 413, ...) without reaching `handler`.
    public init(loop: EventLoop, configuration: Configuration,
                handler: @escaping (HTTPRequest, HTTPResponder) -> Void) throws(TransportError) {
        self.configuration = configuration
        listener = try TCPListener(loop: loop, configuration: configuration.listener,
                                   connectionConfiguration: configuration.connection) { conn in
            conn.armDeadline(after: configuration.requestTimeout, error: .headerTimeout)
            return HTTPServerSession(limits: configuration.http, handler: handler)
        }
    }

    /// Stops accepting; answers in progress go on.
    public func close() { listener.close() }
}

/// One connection of an `HTTPServer`: reads one request, then belongs to its responder.
final class HTTPServerSession: ConnectionHandler {
    private var parser: HTTPRequestParser
    private let handler: (HTTPRequest, HTTPResponder) -> Void
    private var responder: HTTPResponder?

    init(limits: HTTPRequestParser.Limits, handler: @escaping (HTTPRequest, HTTPResponder) -> Void) {
        parser = HTTPRequestParser(limits: limits)
        self.handler = handler
    }

    func connectionDidActivate(_ c: Connection) {}

    func connection(_ c: Connection, didRead bytes: UnsafeRawBufferPointer) {
        guard responder == nil else { return }  // one request per connection: later bytes are ignored
        switch parser.parse(bytes) {
        case .needMore: return
        case .reject(let status):
            c.disarmDeadline()
            let r = HTTPResponder(connection: c, chunked: false)
            responder = r
            r.respond(HTTPResponse(status: status, text: "\(status.reason)\n"))
        case .request(let request):
            c.disarmDeadline()
            let r = HTTPResponder(connection: c, chunked: request.version == "HTTP/1.1")
            responder = r
            handler(request, r)
        }
    }

    func connectionDidClose(_ c: Connection, error: TransportError?) {
        responder?.connectionClosed()
    }
}
