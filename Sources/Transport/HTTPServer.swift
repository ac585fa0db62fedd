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
        /// A body refused as too large (413) is read and discarded, up to this many bytes and
        /// within `requestTimeout`, before the close: a client still sending would otherwise get a
        /// connection reset instead of the status. Larger bodies are cut off after the answer.
        public var maxDiscardBytes = 256 * 1024 * 1024
        public init() {}
    }

    /// The answer to a request the parser refused (400, 413, ...): `head` is its head when it was
    /// well formed (a body too large), so the answer can speak the endpoint's error shape.
    public typealias Refusal = @Sendable (_ status: HTTPStatus, _ head: HTTPRequest?) -> HTTPResponse

    public static let plainRefusal: Refusal = { status, _ in HTTPResponse(status: status, text: "\(status.reason)\n") }

    public let configuration: Configuration
    public let listener: TCPListener
    /// The bound port.
    public var port: UInt16 { listener.port }

    /// `handler` gets each complete request on the loop thread, with the responder that answers
    /// it. A request the parser refuses is answered (400, 413, ...) without reaching `handler`.
    public init(loop: EventLoop, configuration: Configuration, refusal: @escaping Refusal = HTTPServer.plainRefusal,
                handler: @escaping (HTTPRequest, HTTPResponder) -> Void) throws(TransportError) {
        self.configuration = configuration
        listener = try TCPListener(loop: loop, configuration: configuration.listener,
                                   connectionConfiguration: configuration.connection) { conn in
            conn.armDeadline(after: configuration.requestTimeout, error: .headerTimeout)
            return HTTPServerSession(configuration: configuration, refusal: refusal, handler: handler)
        }
    }

    /// Stops accepting; answers in progress go on.
    public func close() { listener.close() }
}

/// One connection of an `HTTPServer`: reads one request, then belongs to its responder.
final class HTTPServerSession: ConnectionHandler {
    private var parser: HTTPRequestParser
    private let handler: (HTTPRequest, HTTPResponder) -> Void
    private let refusal: HTTPServer.Refusal
    private let maxDiscard: Int
    private var responder: HTTPResponder?
    /// Body bytes of a refused request still to read and drop before closing.
    private var discarding = 0

    init(configuration: HTTPServer.Configuration, refusal: @escaping HTTPServer.Refusal,
         handler: @escaping (HTTPRequest, HTTPResponder) -> Void) {
        parser = HTTPRequestParser(limits: configuration.http)
        maxDiscard = configuration.maxDiscardBytes
        self.refusal = refusal
        self.handler = handler
    }

    func connectionDidActivate(_ c: Connection) {}

    func connection(_ c: Connection, didRead bytes: UnsafeRawBufferPointer) {
        if discarding > 0 {
            discarding -= min(discarding, bytes.count)
            if discarding == 0 { c.close() }
            return
        }
        guard responder == nil else { return }  // one request per connection: later bytes are ignored
        switch parser.parse(bytes) {
        case .needMore: return
        case .reject(let status):
            let answer = refusal(status, parser.refusedHead)
            let rest = parser.refusedBodyRemaining
            if parser.refusedHead != nil, rest > 0, rest <= maxDiscard {
                // Answer now, read the rest of the body (under the request deadline), then close
                // with nothing unread: the client sees the status, not a reset.
                responder = HTTPResponder(connection: c, chunked: false)
                discarding = rest
                c.send(answer.encoded())
                return
            }
            c.disarmDeadline()
            let r = HTTPResponder(connection: c, chunked: false)
            responder = r
            r.respond(answer)
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
