import RelayWire

/// Where a link stands. Published on `PeerLink.states` and readable as `PeerLink.state`.
public enum LinkState: Equatable, Sendable {
    /// Dialling the relay (TCP, TLS, WebSocket upgrade).
    case connecting
    /// Upgraded; answering the challenge and waiting for `auth-ok`.
    case authenticating
    /// Authenticated: live frames can be sent, mail flows. The relay's limits come with it.
    case connected(RelayFrame.AuthOK)
    /// The relay (or its certificate) refused us. `retryIn` is the maximum backoff (jittered),
    /// nil when the link will not retry on its own (`replaced`: call `start()` to take over again).
    case refused(LinkRefusal, retryIn: Duration?)
    /// The connection failed or was lost; the next attempt is in `retryIn`.
    case waiting(retryIn: Duration)
    /// The relay said it is restarting; the link reconnects in `reconnectIn` (its delay, jittered up).
    case relayRestarting(reconnectIn: Duration)
    /// Not started yet, or `stop()` was called.
    case stopped

    /// Whether live frames can be sent now.
    public var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }
}

/// Why a relay will not have us: permanent until something changes, so retries are slow.
public enum LinkRefusal: Equatable, Sendable {
    /// `auth-refused` with its reason (an unknown reason is still a refusal) and its text (for people).
    case authRefused(AuthRefusalReason, text: String)
    /// Another connection with our device key authenticated (`error replaced`): no automatic retry.
    case replaced
    /// The relay is shutting down for good (`error shutting-down`).
    case shuttingDown
    /// The challenge named another origin than the one dialled: we refused to sign.
    case originMismatch(String)
    /// The challenge's protocol version is not one we speak.
    case unsupportedVersion(UInt8)
    /// The relay's certificate failed verification (pin mismatch, untrusted chain, wrong host).
    case certificate(String)
}
