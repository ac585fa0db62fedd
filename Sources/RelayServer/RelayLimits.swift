/// What one stranger may take from a public relay: connection slots per address, auth attempts,
/// mailbox space, and where `/metrics` is served. Every field is a setting (ConfigKeys.swift).
public struct RelayLimits: Sendable, Equatable {
    // Per client address (the TCP peer, or the client a trusted proxy names).
    /// Open connections per address.
    public var ipMaxConnections = 64
    /// Connections per address that have not authenticated yet.
    public var ipMaxPending = 16
    /// New connections per second per address (token bucket refill) and at once (bucket size).
    public var ipAcceptRate = 20.0
    public var ipAcceptBurst = 40.0
    /// Unauthenticated connections in all; at it the oldest is closed for the newcomer.
    public var maxPending = 2_000
    /// From half of `maxPending` on, these shorter deadlines apply to new connections.
    public var pressureHeaderTimeout: Duration = .seconds(2)
    public var pressureHandshakeTimeout: Duration = .seconds(2)
    /// Failed auths per address: refill per second and bucket size; beyond it `rate-limited`.
    public var authFailureRate = 1.0
    public var authFailureBurst = 10.0
    /// Authenticated connections per account: its own devices (device proofs, account proofs)
    /// and the devices its admission tokens let in. Beyond it `auth-refused not-admitted`.
    public var accountMaxConnections = 1_000
    /// Proxy addresses believed about the client address (PROXY v1 or X-Forwarded-For).
    public var trustedProxies: [String] = []
    public var proxyProtocol = ProxyProtocol.off

    // Mailbox quotas (per recipient caps are RelayConfig's mailbox-max-*).
    /// Mail one sender may hold in one recipient's mailbox: the rest is kept for other senders.
    public var mailboxSenderFrames = 500
    public var mailboxSenderBytes = 32 * 1024 * 1024
    /// Room in each mailbox only the recipient's own account may fill (devices that present a
    /// verified proof of the same account key); other senders together stop short of it.
    public var mailboxOwnReserveFrames = 250
    public var mailboxOwnReserveBytes = 16 * 1024 * 1024
    /// Mail one sender key may hold across all recipients.
    public var senderMailFrames = 10_000
    public var senderMailBytes = 128 * 1024 * 1024
    /// Mail one source address may hold across all senders and recipients.
    public var ipMailFrames = 20_000
    public var ipMailBytes = 256 * 1024 * 1024
    /// Sealed bytes stored in all (the disk budget); beyond it mail is refused, live frames flow.
    public var mailDiskBudget = 1024 * 1024 * 1024
    /// TTL of mail to a key that never authenticated here; 0 refuses such mail.
    public var unseenRecipientTTL: Duration = .seconds(3_600)

    // Traffic.
    /// A WebSocket message begun must be complete within this (pongs are no progress).
    public var messageTimeout: Duration = .seconds(30)
    /// Loopback address:port of the `/metrics` listener; nil: no metrics.
    public var metricsHost: String? = "127.0.0.1"
    public var metricsPort: UInt16 = 9091

    public enum ProxyProtocol: String, Sendable, CaseIterable { case off, v1 }

    public init() {}

    /// No per-address limits: for tests that open many loopback connections at once.
    public static var unlimited: RelayLimits {
        var l = RelayLimits()
        l.ipMaxConnections = 1_000_000; l.ipMaxPending = 1_000_000
        l.ipAcceptRate = 1e9; l.ipAcceptBurst = 1e9; l.maxPending = 1_000_000
        l.authFailureRate = 1e9; l.authFailureBurst = 1e9; l.accountMaxConnections = 1_000_000
        return l
    }

    func validate() throws(RelayError) {
        if let h = metricsHost, !(h == "127.0.0.1" || h == "::1" || h == "localhost") {
            throw .inconsistent("metrics-listen must be a loopback address (127.0.0.1:PORT or [::1]:PORT) or off: /metrics tells who talks to whom")
        }
        if mailboxSenderFrames < 1 || mailboxSenderBytes < 1 { throw .inconsistent("mailbox-sender-frames and -bytes must be at least 1") }
        if proxyProtocol == .v1 && trustedProxies.isEmpty {
            throw .inconsistent("proxy-protocol = v1 needs trusted-proxies: the addresses of the proxies that send the PROXY line")
        }
    }
}
