// peer-gone (0x19, relay -> device; layout in RelayFrame.swift): the relay's word that a device
// this one exchanged live frames with lately has left, so an open exchange with it ends at once
// instead of waiting out a timeout. A device that does not know the type skips it.

extension RelayFrame {
    /// relay -> device: `peer` left the relay, for `reason`.
    public struct PeerGone: Equatable, Sendable {
        /// The device key of the device that left.
        public var peer: Bytes32
        public var reason: PeerGoneReason
        public init(peer: Bytes32, reason: PeerGoneReason) { self.peer = peer; self.reason = reason }
    }
}

/// Why a peer left (the `reason` byte of `peer-gone`): an open set, like the error codes, so a
/// newer relay's reason decodes and round-trips.
public struct PeerGoneReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Its connection closed (the process ended, the socket was reset or closed).
    public static let closed = Self(rawValue: 1)
    /// A newer connection authenticated with its key (it came back elsewhere).
    public static let replaced = Self(rawValue: 2)
    /// It stopped answering: the idle deadline passed, or a liveness probe went unanswered.
    public static let silent = Self(rawValue: 3)

    public var description: String {
        switch self {
        case .closed: "closed"
        case .replaced: "replaced"
        case .silent: "silent"
        default: "reason \(rawValue)"
        }
    }
}
