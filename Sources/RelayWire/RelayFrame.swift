// Relay frames: what a device and the relay say to each other, one frame per WebSocket binary
// message (or back to back on a byte stream: the header carries the length).
//
// Header (6 bytes), then the body:
//
//   +--------+--------+--------+--------+--------+--------+---------------+
//   | type   | flags  |        length (u32, big-endian)   | body (length) |
//   +--------+--------+--------+--------+--------+--------+---------------+
//
// flags: senders write 0; receivers ignore every bit (reserved for later versions).
// length: 0...Limits.maxFrameBody; a larger length is rejected from the header alone.
//
//   type  name          direction        body
//   0x01  challenge     relay -> device  version u8 | nonce 32 | origin (u16 len, UTF-8)
//   0x02  auth          device -> relay  device key 32 | signature 64 | options u8
//                                        | [account key 32 | account signature 64]  (options bit 0)
//                                        | [token (u16 len)]                        (options bit 1)
//   0x03  auth-ok       relay -> device  server time ms u64 | mailbox capacity u32 | max ttl s u32
//   0x04  auth-refused  relay -> device  reason u8 | text (u16 len, UTF-8)
//   0x05  device-proof  device -> relay  before auth (AdmissionFrames.swift)
//   0x10  send          device -> relay  recipient 32 | class u8 | frame id 16 | ttl s u32
//                                        | collapse key (u8 len, <= 64) | sealed (rest)
//   0x11  receive       relay -> device  sender 32 | class u8 | frame id 16 | held ms u64 | sealed (rest)
//   0x12  ack           device -> relay  frame id 16
//   0x13  not-here      relay -> device  frame id 16
//   0x14  stored        relay -> device  frame id 16
//   0x15  mailbox-full  relay -> device  frame id 16
//   0x16  dropped       relay -> device  frame id 16
//   0x17  queue-empty   relay -> device  (empty)
//   0x18  account-order device -> relay  after auth-ok (AdmissionFrames.swift)
//   0x19  peer-gone     relay -> device  peer key 32 | reason u8 (1 closed, 2 replaced, 3 silent)
//   0x20  ping          either           opaque u64
//   0x21  pong          either           opaque u64 (echoes the ping)
//   0x30  error         either           code u16 | text (u16 len, UTF-8); the sender then closes
//   0x31  restarting    relay -> device  reconnect after ms u32
//   other unknown       -                skipped: decoded as .unknown(type:), never an error

/// One relay frame. Decode with `RelayFrame.decode(_:)` (one whole message) or `FrameParser`
/// (a byte stream); encode with `encode()`.
public enum RelayFrame: Equatable, Sendable {
    case challenge(Challenge)
    case auth(Auth)
    case authOK(AuthOK)
    case authRefused(AuthRefused)
    /// The account's proof for the device of the `auth` that follows.
    case deviceProof(DeviceProof)
    case send(Send)
    case receive(Receive)
    /// The device took delivery of a mail frame: the relay deletes it.
    case ack(frameID: Bytes16)
    /// A live frame's recipient is not connected: nothing was stored.
    case notHere(frameID: Bytes16)
    /// A mail frame was stored for an offline recipient.
    case stored(frameID: Bytes16)
    /// A mail frame was refused: the recipient's mailbox is at capacity.
    case mailboxFull(frameID: Bytes16)
    /// A live frame was dropped because its recipient reads too slowly.
    case dropped(frameID: Bytes16)
    /// The stored backlog has been delivered; what follows is live.
    case queueEmpty
    /// A signed order of an account: revoke a device, admit a token.
    case accountOrder(AccountOrder)
    /// A device this one exchanged live frames with lately has left the relay (DERP's PeerGone):
    /// what was sent to it since is lost; `not-here` for new frames follows.
    case peerGone(PeerGone)
    case ping(UInt64)
    case pong(UInt64)
    /// Sent before closing; a newer connection for the same key gets the older one `.replaced`.
    case error(ErrorFrame)
    /// The relay is restarting: reconnect after this many milliseconds.
    case restarting(reconnectAfterMs: UInt32)
    /// A type this version does not know; its body was skipped.
    case unknown(type: UInt8)

    /// The relay protocol version carried by `challenge`.
    public static let protocolVersion: UInt8 = 1
    /// type u8, flags u8, length u32.
    public static let headerSize = 6

    enum TypeCode {
        static let challenge: UInt8 = 0x01, auth: UInt8 = 0x02, authOK: UInt8 = 0x03, authRefused: UInt8 = 0x04, deviceProof: UInt8 = 0x05
        static let send: UInt8 = 0x10, receive: UInt8 = 0x11, ack: UInt8 = 0x12, notHere: UInt8 = 0x13
        static let stored: UInt8 = 0x14, mailboxFull: UInt8 = 0x15, dropped: UInt8 = 0x16, queueEmpty: UInt8 = 0x17
        static let accountOrder: UInt8 = 0x18, peerGone: UInt8 = 0x19
        static let ping: UInt8 = 0x20, pong: UInt8 = 0x21, error: UInt8 = 0x30, restarting: UInt8 = 0x31
    }

    /// Who may send a frame: a receiver closes with `protocolViolation` on a frame from the wrong side.
    public enum Sender: Sendable { case relay, device, either }

    /// Who may send this frame (`.either` for unknown types, which are skipped anyway).
    public var sender: Sender {
        switch self {
        case .auth, .send, .ack, .deviceProof, .accountOrder: .device
        case .ping, .pong, .error, .unknown: .either
        case .challenge, .authOK, .authRefused, .receive, .notHere, .stored, .mailboxFull, .dropped,
             .queueEmpty, .restarting, .peerGone: .relay
        }
    }

    /// The type byte of this frame.
    public var typeCode: UInt8 {
        switch self {
        case .challenge: TypeCode.challenge
        case .auth: TypeCode.auth
        case .authOK: TypeCode.authOK
        case .authRefused: TypeCode.authRefused
        case .send: TypeCode.send
        case .receive: TypeCode.receive
        case .ack: TypeCode.ack
        case .notHere: TypeCode.notHere
        case .stored: TypeCode.stored
        case .mailboxFull: TypeCode.mailboxFull
        case .dropped: TypeCode.dropped
        case .queueEmpty: TypeCode.queueEmpty
        case .deviceProof: TypeCode.deviceProof
        case .accountOrder: TypeCode.accountOrder
        case .peerGone: TypeCode.peerGone
        case .ping: TypeCode.ping
        case .pong: TypeCode.pong
        case .error: TypeCode.error
        case .restarting: TypeCode.restarting
        case .unknown(let t): t
        }
    }
}
