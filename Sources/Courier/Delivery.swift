import PeerLink
import Sealing
import Signing
import Wire

/// One opened inbound message that is not a reply to a request of ours.
///
/// Mail is acknowledged to the relay only when the consumer calls `ack()` (after it has
/// durably processed the message): the relay keeps it until then and delivers it again on the
/// next connection if we crash. Live messages need no ack (`ack()` does nothing for them).
public struct Delivery: Sendable {
    public let message: AppMessage
    /// The sender's verified record (from the directory).
    public let sender: DeviceRecord
    /// The envelope's message id. For a message reassembled from parts: the id of the envelope
    /// that carried its last part (index count - 1), which is also the reply stream's id.
    public let messageID: MessageID
    /// How long the relay held it (0 for live). Age = (now - receivedAtMs) + heldMs.
    public let heldMs: UInt64
    /// Our wall clock at receipt, Unix milliseconds (of the frame that completed the message).
    public let receivedAtMs: UInt64
    /// For a `request` only: the secret of its reply stream (give it to `ReplyWriter`).
    public let streamSecret: SecretBytes?
    public let deliveryClass: DeliveryClass
    /// The relay frame id (of the frame that completed the message).
    public let frameID: Bytes16
    /// True when the message came as an introduction (first contact): the sender vouched for
    /// itself with its own record, no directory did. Act on such a delivery only where first
    /// contact is expected (`join`, pairing); false for every envelope.
    public let introduced: Bool
    /// Our monotonic clock when the link read the frame that completed the message (nil in a
    /// delivery a test made): how long the Courier took before the consumer saw it.
    public let receivedAt: ContinuousClock.Instant?

    let acker: Acker?
    /// A live request's replay check still committing (`ReplayCommit`): its writer waits for it.
    let replayCommit: ReplayCommit?

    /// For tests of code that consumes deliveries (an agent's handlers): `ack()` does nothing.
    public init(message: AppMessage, sender: DeviceRecord, messageID: MessageID, heldMs: UInt64 = 0,
                receivedAtMs: UInt64, streamSecret: SecretBytes? = nil, deliveryClass: DeliveryClass = .live,
                frameID: Bytes16 = .zero, introduced: Bool = false) {
        self.init(message: message, sender: sender, messageID: messageID, heldMs: heldMs, receivedAtMs: receivedAtMs,
                  streamSecret: streamSecret, deliveryClass: deliveryClass, frameID: frameID, acker: nil,
                  introduced: introduced)
    }

    init(message: AppMessage, sender: DeviceRecord, messageID: MessageID, heldMs: UInt64, receivedAtMs: UInt64,
         streamSecret: SecretBytes?, deliveryClass: DeliveryClass, frameID: Bytes16, acker: Acker?,
         introduced: Bool = false, receivedAt: ContinuousClock.Instant? = nil, replayCommit: ReplayCommit? = nil) {
        self.message = message; self.sender = sender; self.messageID = messageID; self.heldMs = heldMs
        self.receivedAtMs = receivedAtMs; self.streamSecret = streamSecret; self.deliveryClass = deliveryClass
        self.frameID = frameID; self.acker = acker; self.introduced = introduced; self.receivedAt = receivedAt
        self.replayCommit = replayCommit
    }

    /// Acknowledges the mail frame(s) that carried this message so the relay deletes them.
    /// Call once the message is durably processed. Does nothing for live messages.
    public func ack() { acker?.ack() }
}

/// Acks the frames behind one delivery (every part's frame for a reassembled message).
struct Acker: Sendable {
    let link: PeerLink
    let frames: [Inbound]
    func ack() { for f in frames { link.ack(f) } }
}

/// What else the Courier hears: the relay's backlog marker and the link's state changes.
public enum CourierEvent: Equatable, Sendable {
    /// `queue-empty`: every mail stored for us before this connection has been delivered.
    case queueEmpty
    /// The link to the relay changed state.
    case link(LinkState)
}
