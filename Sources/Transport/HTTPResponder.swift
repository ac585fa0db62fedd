import Synchronization

/// Answers one request of an `HTTPServer`: either whole (`respond`) or streamed (`start`, any
/// number of `write`, then `finish`). Thread-safe: calls from other threads hop to the loop, in
/// order. Calls after the answer is complete, or after the peer went away, are ignored.
///
/// Streamed bodies use chunked transfer coding (HTTP/1.1; an HTTP/1.0 peer gets the body
/// delimited by the close):
///
///   HTTP/1.1 200 OK\r\n <headers> Transfer-Encoding: chunked\r\n Connection: close\r\n \r\n
///   <hex length>\r\n <bytes>\r\n          one chunk per `write`
///   0\r\n \r\n                            `finish`
public final class HTTPResponder: @unchecked Sendable {
    private enum State { case fresh, streaming, done }

    private let connection: Connection
    private let chunked: Bool
    /// Loop thread only.
    private var state = State.fresh
    private var closeHandlers: [@Sendable () -> Void] = []
    /// Set on the loop thread when the connection closes; read from any thread.
    private let closedFlag = Atomic<Bool>(false)

    init(connection: Connection, chunked: Bool) {
        self.connection = connection
        self.chunked = chunked
    }

    /// "address:port" of the client.
    public var peer: String { connection.peer }

    /// True once the client is gone (or the answer completed and the connection closed).
    public var isClosed: Bool { closedFlag.load(ordering: .acquiring) }

    /// Sends a complete response (with `Content-Length`) and closes.
    public func respond(_ response: HTTPResponse) {
        onLoop { me in
            guard me.state == .fresh else { return }
            me.state = .done
            me.connection.send(response.encoded())
            me.connection.close()
        }
    }

    /// Sends the head of a streamed response; the body follows with `write`.
    public func start(status: HTTPStatus, headers: HTTPHeaders) {
        onLoop { me in
            guard me.state == .fresh else { return }
            me.state = .streaming
            var head = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
            for f in headers.fields { head += "\(f.name): \(f.value)\r\n" }
            if me.chunked { head += "Transfer-Encoding: chunked\r\n" }
            head += "Connection: close\r\n\r\n"
            me.connection.send(Array(head.utf8))
        }
    }

    /// Sends part of a streamed body at once (an empty write sends nothing: an empty chunk would
    /// end the body).
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        onLoop { me in
            guard me.state == .streaming else { return }
            if me.chunked {
                me.connection.send([Array((String(bytes.count, radix: 16) + "\r\n").utf8), bytes, [13, 10]])
            } else {
                me.connection.send(bytes)
            }
        }
    }

    /// Ends a streamed body and closes the connection.
    public func finish() {
        onLoop { me in
            guard me.state == .streaming else { return }
            me.state = .done
            if me.chunked { me.connection.send(Array("0\r\n\r\n".utf8)) }
            me.connection.close()
        }
    }

    /// Closes without completing the body: the client sees the stream cut (a failed answer must
    /// not look complete).
    public func abort() {
        onLoop { me in
            me.state = .done
            me.connection.close(flush: true)
        }
    }

    /// `body` runs once when the connection closes for any reason (the client went away: stop
    /// generating). Runs at once, on the loop, if it already has.
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        onLoop { me in
            if me.isClosed { body() } else { me.closeHandlers.append(body) }
        }
    }

    /// Loop thread: the connection is finished.
    func connectionClosed() {
        state = .done
        closedFlag.store(true, ordering: .releasing)
        let handlers = closeHandlers
        closeHandlers = []
        for h in handlers { h() }
    }

    private func onLoop(_ work: @escaping @Sendable (HTTPResponder) -> Void) {
        if connection.loop.inLoop {
            work(self)
        } else {
            connection.loop.execute { [self] in work(self) }
        }
    }
}
