import Signing

/// Another account's Homebase this device was invited to.
public struct JoinedHomebase: Sendable, Equatable {
    /// invited → joined → revoked. Only `joined` routes: an invitation not accepted never does.
    public enum State: String, Sendable, Equatable, CaseIterable {
        case invited, joined, revoked
    }

    public var hostKey: PublicKey
    /// The host's X25519 HPKE key (32 bytes), from the invite: what requests are sealed to.
    public var hpkeKey: [UInt8]
    /// The relay the invite named: the friend's Homebase lives there.
    public var relayURL: String
    public var state: State
    /// Model tags from the invite, then from grants and adverts.
    public var models: [String]
    /// Receiver's clock at the last inbound frame from this host minus the relay's held time;
    /// nil when nothing was heard yet.
    public var lastHeardMs: Int64?

    public init(hostKey: PublicKey, hpkeKey: [UInt8], relayURL: String, state: State,
                models: [String], lastHeardMs: Int64? = nil) {
        self.hostKey = hostKey; self.hpkeKey = hpkeKey; self.relayURL = relayURL
        self.state = state; self.models = models; self.lastHeardMs = lastHeardMs
    }

    /// HPKE public keys are 32 bytes (X25519).
    public static let hpkeKeyByteCount = 32
}
