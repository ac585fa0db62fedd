// The bodies of relay frames that have more than one field (layouts in RelayFrame.swift).

extension RelayFrame {
    /// relay -> device, first frame on a connection: prove you hold your key.
    public struct Challenge: Equatable, Sendable {
        /// The relay protocol version (`RelayFrame.protocolVersion`).
        public var version: UInt8
        /// 32 fresh random bytes, never reused.
        public var nonce: Bytes32
        /// The relay's origin as the device dialled it, e.g. "wss://relay.example:443";
        /// a device MUST check it equals the origin it dialled before signing.
        public var origin: String
        public init(version: UInt8 = RelayFrame.protocolVersion, nonce: Bytes32, origin: String) {
            self.version = version; self.nonce = nonce; self.origin = origin
        }
    }

    /// An account key's signature over `RelayAuth.accountBinding(deviceKey:)`.
    public struct AccountProof: Equatable, Sendable {
        public var accountKey: Bytes32
        public var signature: Bytes64
        public init(accountKey: Bytes32, signature: Bytes64) { self.accountKey = accountKey; self.signature = signature }
    }

    /// device -> relay: the answer to `challenge`.
    public struct Auth: Equatable, Sendable {
        /// The device's Ed25519 signing key: its address at the relay.
        public var deviceKey: Bytes32
        /// Ed25519 by `deviceKey` over `RelayAuth.transcript(origin:challenge:deviceKey:)`.
        public var signature: Bytes64
        public var account: AccountProof?
        /// An admission token (from an invite), at most `Limits.maxAdmissionToken` bytes.
        public var admissionToken: [UInt8]?
        public init(deviceKey: Bytes32, signature: Bytes64, account: AccountProof? = nil, admissionToken: [UInt8]? = nil) {
            self.deviceKey = deviceKey; self.signature = signature
            self.account = account; self.admissionToken = admissionToken
        }
        static let hasAccount: UInt8 = 0x01, hasToken: UInt8 = 0x02
    }

    /// relay -> device: authenticated; what the relay will hold for this device.
    public struct AuthOK: Equatable, Sendable {
        /// The relay's clock (Unix ms): lets a device notice its own clock is off.
        public var serverTimeMs: UInt64
        /// How many mail frames the relay stores per recipient.
        public var mailboxCapacity: UInt32
        /// The longest TTL the relay honours for mail; longer TTLs are shortened to it.
        public var maxTTLSeconds: UInt32
        public init(serverTimeMs: UInt64, mailboxCapacity: UInt32, maxTTLSeconds: UInt32) {
            self.serverTimeMs = serverTimeMs; self.mailboxCapacity = mailboxCapacity; self.maxTTLSeconds = maxTTLSeconds
        }
    }

    /// relay -> device: not authenticated; the relay closes after this frame.
    public struct AuthRefused: Equatable, Sendable {
        public var reason: AuthRefusalReason
        /// For people, at most `Limits.maxReasonText` bytes.
        public var text: String
        public init(reason: AuthRefusalReason, text: String) { self.reason = reason; self.text = text }
    }

    /// device -> relay: deliver `sealed` to `recipient`.
    public struct Send: Equatable, Sendable {
        public var recipient: Bytes32
        public var deliveryClass: DeliveryClass
        /// Chosen at random by the sender; names this frame in `ack`, `stored`, `not-here`...
        public var frameID: Bytes16
        /// How long a mail frame may wait in the mailbox; ignored for live frames.
        public var ttlSeconds: UInt32
        /// Mail only (empty: none; at most 64 bytes): the relay keeps only the newest stored frame
        /// per (sender, recipient, collapse key).
        public var collapseKey: [UInt8]
        /// The sealed envelope, opaque to the relay, at most `Limits.maxSealed` bytes.
        public var sealed: [UInt8]
        public init(recipient: Bytes32, deliveryClass: DeliveryClass, frameID: Bytes16, ttlSeconds: UInt32,
                    collapseKey: [UInt8] = [], sealed: [UInt8]) {
            self.recipient = recipient; self.deliveryClass = deliveryClass; self.frameID = frameID
            self.ttlSeconds = ttlSeconds; self.collapseKey = collapseKey; self.sealed = sealed
        }
    }

    /// relay -> device: a frame for you. Mail frames must be `ack`ed.
    public struct Receive: Equatable, Sendable {
        /// The authenticated key of the connection that sent it.
        public var sender: Bytes32
        public var deliveryClass: DeliveryClass
        public var frameID: Bytes16
        /// How long the relay held the frame (0 for live): freshness is judged with it.
        public var heldMs: UInt64
        public var sealed: [UInt8]
        public init(sender: Bytes32, deliveryClass: DeliveryClass, frameID: Bytes16, heldMs: UInt64, sealed: [UInt8]) {
            self.sender = sender; self.deliveryClass = deliveryClass; self.frameID = frameID
            self.heldMs = heldMs; self.sealed = sealed
        }
    }

    /// Either side, just before it closes the connection.
    public struct ErrorFrame: Equatable, Sendable {
        public var code: RelayErrorCode
        /// For people, at most `Limits.maxReasonText` bytes; never secrets.
        public var text: String
        public init(code: RelayErrorCode, text: String) { self.code = code; self.text = text }
    }
}
