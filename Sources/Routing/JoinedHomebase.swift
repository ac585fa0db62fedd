import Signing
import Wire

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
    /// What the host's adverts say each model can do, by tag. A tag not in it (a model known
    /// only from the invite or the grant, before any advert) is unknown: no tools, no sight.
    public var capabilities: [String: AppMessage.Capabilities]
    /// The grant lets this device send requests that carry tools (`homebase share --tools`,
    /// told by `grant-terms`). False until told: a host that never says so never gets tools.
    public var toolsGranted: Bool

    public init(hostKey: PublicKey, hpkeKey: [UInt8], relayURL: String, state: State,
                models: [String], lastHeardMs: Int64? = nil,
                capabilities: [String: AppMessage.Capabilities] = [:], toolsGranted: Bool = false) {
        self.hostKey = hostKey; self.hpkeKey = hpkeKey; self.relayURL = relayURL
        self.state = state; self.models = models; self.lastHeardMs = lastHeardMs
        self.capabilities = capabilities; self.toolsGranted = toolsGranted
    }

    /// HPKE public keys are 32 bytes (X25519).
    public static let hpkeKeyByteCount = 32
}
