import Signing
import RelayWire

/// What became of one live frame.
public enum LiveOutcome: Equatable, Sendable {
    /// Handed to the relay and not bounced: the relay answered our next ping without a
    /// `not-here` or `dropped` for it (the relay answers a connection's frames in order).
    case sent
    /// The recipient is not connected to this relay; nothing was stored.
    case notHere
    /// The relay dropped it: the recipient reads too slowly.
    case dropped
    /// Not sent, or its fate is unknown: `.linkDown` (returned at once when the link is not up),
    /// `.timeout`, `.stopped`, `.tooLarge`.
    case failed(PeerLinkError)
}

/// What became of one mail frame.
public enum MailOutcome: Equatable, Sendable {
    /// The relay stored it durably for the recipient.
    case stored
    /// The recipient's mailbox is at capacity; the frame was not stored.
    case mailboxFull
}

/// A frame the relay delivered to us.
public struct Inbound: Equatable, Sendable {
    /// The authenticated device key of the sender.
    public var sender: PublicKey
    public var deliveryClass: DeliveryClass
    public var frameID: Bytes16
    /// How long the relay held it (0 for live): age = (now - receivedAt) + heldMs.
    public var heldMs: UInt64
    /// The sealed bytes, opaque here.
    public var payload: [UInt8]
    /// Our monotonic clock at receipt (for ages within this process).
    public var receivedAt: ContinuousClock.Instant
    /// Our wall clock at receipt, Unix milliseconds (for ages stored across restarts).
    public var receivedAtWallMs: UInt64
}

/// An event of the inbound stream: a frame, or the marker that the stored backlog is drained.
public enum InboundEvent: Equatable, Sendable {
    case frame(Inbound)
    /// `queue-empty`: every mail stored for us before this connection has been delivered.
    case queueEmpty
    /// `peer-gone`: a device we exchanged live frames with lately left the relay (closed,
    /// replaced or silent). What we sent it since is lost; an open exchange with it is over.
    case peerGone(PublicKey, PeerGoneReason)
}
