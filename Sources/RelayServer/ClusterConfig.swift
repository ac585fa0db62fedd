/// The relay as a cluster (docs/CLUSTER.md): nodes share routing and mail through NATS.
/// Off (no `cluster-nats`): the single-node relay, SQLite mailbox, exactly as before.
public struct ClusterConfig: Sendable, Equatable {
    /// NATS URLs of the cluster (nats://host:port or tls://host:port); empty: single node.
    public var natsURLs: [String] = []
    /// This node's name: unique in the cluster, a NATS subject token (letters, digits, - and _).
    public var nodeName: String?
    /// The NATS user of relay nodes, its password in a file (never on the command line).
    public var natsUser: String?
    public var natsPasswordFile: String?
    /// A NATS .creds file (user JWT + nkey seed), instead of user and password.
    public var natsCredentials: String?
    /// An nkey user of NATS: its public key, and the file holding its seed.
    public var natsNkey: String?
    public var natsNkeySeedFile: String?
    /// PEM CA of the NATS servers' certificates: TLS to NATS.
    public var natsCA: String?
    /// Connect, flush and JetStream API deadline.
    public var natsTimeout: Duration = .seconds(2)
    /// Pings to the NATS server; `natsMaxPingsOut` unanswered mark the link dead.
    public var natsPingInterval: Duration = .seconds(2)
    public var natsMaxPingsOut = 2
    public var natsReconnectWait: Duration = .milliseconds(250)
    /// The mail stream: its name and replicas (3: one NATS node may die with no mail lost).
    public var mailStream = "HOMEBASE_MAIL"
    public var replicas = 3
    /// Longest wait for the stream's ack of a mail frame; beyond it `mailbox-full` (never `stored`).
    public var publishTimeout: Duration = .seconds(2)
    /// A frame handed to a device and not acknowledged within this is delivered again.
    public var ackWait: Duration = .seconds(30)
    /// A recipient's consumer unused this long is deleted by NATS (its mail stays).
    public var consumerInactive: Duration = .seconds(3_600)
    /// Nats-Msg-Id dedupe window of the mail stream.
    public var duplicateWindow: Duration = .seconds(120)
    /// Between a joining device's flush and its `auth-ok`: its interest reaches the other NATS
    /// servers (routes carry it asynchronously; docs/CLUSTER.md has the measured window).
    public var joinSettle: Duration = .milliseconds(50)

    public init() {}

    public var enabled: Bool { !natsURLs.isEmpty }

    func validate() throws(RelayError) {
        guard enabled else { return }
        guard let n = nodeName else {
            throw .inconsistent("cluster-nats needs cluster-node-name: a name unique among the relay nodes, e.g. relay-1")
        }
        guard Self.isToken(n) else {
            throw .inconsistent("cluster-node-name \"\(n)\": use 1 to 64 letters, digits, - or _ (it is a NATS subject token)")
        }
        if natsPasswordFile != nil && natsUser == nil {
            throw .inconsistent("cluster-nats-password-file needs cluster-nats-user")
        }
        if natsCredentials != nil && natsUser != nil {
            throw .inconsistent("cluster-nats-credentials and cluster-nats-user exclude each other: use one way to log in to NATS")
        }
        if (natsNkey == nil) != (natsNkeySeedFile == nil) {
            throw .inconsistent("cluster-nats-nkey and cluster-nats-nkey-seed-file go together (the user's public nkey and its seed file)")
        }
        if natsNkey != nil && (natsUser != nil || natsCredentials != nil) {
            throw .inconsistent("cluster-nats-nkey excludes cluster-nats-user and cluster-nats-credentials: use one way to log in to NATS")
        }
        guard Self.isToken(mailStream) else { throw .inconsistent("cluster-mail-stream: letters, digits, - or _ only") }
        guard (1...5).contains(replicas) else { throw .inconsistent("cluster-replicas must be between 1 and 5 (3 for a three-node NATS cluster)") }
    }

    static func isToken(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64 && s.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c == 0x2d || c == 0x5f
        }
    }
}
