/// How a relay node connects to its NATS cluster. Every interval is a setting (tests shorten them).
public struct NatsSettings: Sendable, Equatable {
    /// nats://host:port or tls://host:port, one or more nodes of one cluster (more are discovered);
    /// tried in this order (not shuffled): the node's own NATS server first.
    public var servers: [String] = []
    /// The connection name NATS shows for this node (`server` monitoring, logs).
    public var name = "homebase-relay"
    /// User and password (explicit account users); nil when `credentialsFile` is used.
    public var user: String?
    public var password: String?
    /// A NATS `.creds` file (a user JWT and its nkey seed).
    public var credentialsFile: String?
    /// An nkey user: its public key (U...) and the file holding its seed (SU...).
    public var nkeyPublic: String?
    public var nkeySeedFile: String?
    /// PEM CA the NATS servers' certificates must chain to (TLS to NATS).
    public var caFile: String?
    /// Connect, flush and JetStream API deadline, in ms.
    public var timeoutMs: Int64 = 2_000
    /// Client pings to the NATS server; `maxPingsOut` unanswered ones mark the link dead.
    public var pingIntervalMs: Int64 = 2_000
    public var maxPingsOut = 2
    /// Between reconnect attempts (libnats adds jitter).
    public var reconnectWaitMs: Int64 = 250

    public init() {}
}
