/// Receives a connection's events, on its loop's thread.
public protocol ConnectionHandler: AnyObject {
    /// Connected, and for TLS the handshake completed: the connection is ready for application bytes.
    func connectionDidActivate(_ connection: Connection)
    /// Plaintext arrived. The buffer is the loop's shared read buffer: valid only during the call.
    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer)
    /// `queuedBytes` rose above the high-water mark (once, until it drains to half of it).
    func connectionDidReachHighWater(_ connection: Connection)
    /// `queuedBytes` fell back to half the high-water mark.
    func connectionDidDrain(_ connection: Connection)
    /// The connection is closed and its descriptor released; `error` is nil after a local `close()`.
    func connectionDidClose(_ connection: Connection, error: TransportError?)
}

extension ConnectionHandler {
    public func connectionDidReachHighWater(_ connection: Connection) {}
    public func connectionDidDrain(_ connection: Connection) {}
}

/// Limits of one connection. Every timeout is configurable so tests run in milliseconds.
public struct ConnectionConfiguration: Sendable {
    /// Above this many queued bytes the handler hears `connectionDidReachHighWater`
    /// (the relay's cue to drop frames for a slow receiver).
    public var highWaterMark = 256 * 1024
    /// Above this the connection is closed with `.sendQueueFull`: memory per peer stays bounded.
    public var maxQueuedBytes = 4 * 1024 * 1024
    /// Queued output that makes no progress for this long closes the connection (`.writeTimeout`).
    public var writeTimeout: Duration = .seconds(30)
    /// Nothing read for this long closes the connection (`.idleTimeout`); nil: never.
    public var idleTimeout: Duration? = nil
    /// Client connects only: the local address to connect from (numeric; nil: the kernel's choice).
    public var sourceAddress: String?
    /// TCP_USER_TIMEOUT: data the peer leaves unacknowledged this long fails the connection
    /// (a peer gone without a FIN is found in seconds, not minutes). nil: the kernel's default.
    public var userTimeout: Duration?
    public init() {}
}
