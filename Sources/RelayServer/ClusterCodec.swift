import Basics
import Signing
import RelayWire

/// The cluster's subjects and the bytes nodes exchange over NATS. Pure: no I/O.
///
///   hb.d.<kh>                        a device's live subject (kh: 32 hex digits of SHA-256(key); never the key)
///   hb.m.<kh>.<sh>.<size>.<exp>.u.<id>  one mail frame from sender <sh> (sealed size; exp: expiry, unix
///                                    seconds; id: hash of sender and frame id)
///   hb.m.<kh>.<sh>.<size>.<exp>.c.<ck>  a collapsed mail frame (ck: hash of sender and collapse key)
///   hb.m.<kh>.u.<id>, hb.m.<kh>.c.<ck>  the layout before the quotas (still delivered: same consumer filter)
///   hb.s.<kh>                        the key authenticated within max-ttl (data: its account's hash, or empty)
///   hbr.<node>.<serial>.<fid>        answers to live frames a device of <node> sent (<fid>: frame id in hex)
/// The sender, size and expiry ride in the subject because 2.9's subject-filtered stream info lists
/// subjects and counts, not bytes: the quotas are read from one call (ClusterQuota.swift).
enum ClusterSubjects {
    static func keyHash(_ key: Bytes32) -> String { hex16(sha256(key.bytes)) }
    static func device(_ key: Bytes32) -> String { "hb.d." + keyHash(key) }
    static func mailbox(_ key: Bytes32) -> String { "hb.m." + keyHash(key) + ".>" }
    /// The key's seen record: empty, or the hash of its verified account key (ClusterQuota.swift).
    static func seen(_ key: Bytes32) -> String { "hb.s." + keyHash(key) }
    static func accountHash(_ account: Bytes32?) -> [UInt8] { account.map { Array(sha256($0.bytes).prefix(16)) } ?? [] }
    /// Every frame `sender` holds, across recipients (new layout only).
    static func sentBy(_ sender: Bytes32) -> String { "hb.m.*.\(keyHash(sender)).>" }
    static func mail(to r: Bytes32, from s: Bytes32, frameID: Bytes16, collapseKey: [UInt8], size: Int, expiresMs: Int64) -> String {
        let exp = (expiresMs + 999) / 1000
        return "hb.m.\(keyHash(r)).\(keyHash(s)).\(size).\(exp)." + tail(from: s, frameID: frameID, collapseKey: collapseKey)
    }
    /// The last two tokens: `u.<id>` or `c.<ck>` (the same collapse key matches whatever the size and expiry).
    static func tail(from s: Bytes32, frameID: Bytes16, collapseKey: [UInt8]) -> String {
        if collapseKey.isEmpty { return "u." + hex16(sha256(s.bytes + frameID.bytes)) }
        return "c." + hex16(sha256(s.bytes + [UInt8(collapseKey.count)] + collapseKey))
    }
    /// Nats-Msg-Id: the same (recipient, sender, frame id) is stored once (the SQLite mailbox's rule).
    static func messageID(to r: Bytes32, from s: Bytes32, frameID: Bytes16) -> String {
        hex16(sha256(r.bytes + s.bytes + frameID.bytes))
    }
    /// The durable consumer of a recipient's mail (shared by every node).
    static func consumer(_ key: Bytes32) -> String { "hbm" + keyHash(key) }
    static func replies(node: String) -> String { "hbr.\(node).>" }
    static func reply(node: String, serial: UInt64, frameID: Bytes16) -> String { "hbr.\(node).\(serial).\(hexString(frameID.bytes))" }

    /// (serial, frame id) of an answer subject of this node.
    static func parseReply(_ subject: String) -> (serial: UInt64, frameID: Bytes16)? {
        let parts = subject.split(separator: ".")
        guard parts.count == 4, let serial = UInt64(parts[2]), let id = bytes(fromHex: parts[3]), let f = Bytes16(id) else { return nil }
        return (serial, f)
    }

    private static func hex16(_ d: [UInt8]) -> String { hexString(d.prefix(16)) }
}

/// What a node publishes on a device's subject, and the answers.
enum ClusterMessage: Equatable {
    /// A `receive` frame to hand to the device.
    case live([UInt8])
    /// The device authenticated on `node` at `authMs`: an older connection elsewhere is `replaced`.
    case claim(authMs: Int64, node: String)
    /// Mail was stored for the device: fetch it.
    case mailWaiting
    /// `peer`, a device it exchanged live frames with on another node, left (its `peer-gone`).
    case gone(peer: Bytes32, reason: PeerGoneReason)

    static let liveTag: UInt8 = 0x4c, claimTag: UInt8 = 0x43, mailTag: UInt8 = 0x4d, goneTag: UInt8 = 0x47

    func encode() -> [UInt8] {
        switch self {
        case .live(let f): return [Self.liveTag] + f
        case let .claim(ms, node): return [Self.claimTag] + be64(UInt64(bitPattern: ms)) + Array(node.utf8)
        case .mailWaiting: return [Self.mailTag]
        case let .gone(peer, reason): return [Self.goneTag, reason.rawValue] + peer.bytes
        }
    }

    static func decode(_ b: [UInt8]) -> ClusterMessage? {
        guard let tag = b.first else { return nil }
        switch tag {
        case liveTag: return .live(Array(b.dropFirst()))
        case claimTag:
            guard b.count > 9 else { return nil }
            return .claim(authMs: Int64(bitPattern: readBE64(b, 1)), node: String(decoding: b[9...], as: UTF8.self))
        case mailTag: return b.count == 1 ? .mailWaiting : nil
        case goneTag:
            guard b.count == 34 else { return nil }
            return .gone(peer: Bytes32(unchecked: Array(b[2...])), reason: PeerGoneReason(rawValue: b[1]))
        default: return nil
        }
    }

    /// The answer of the device's node when a live frame did not reach the device.
    enum Answer: UInt8 { case dropped = 0x44, notHere = 0x4e }
}

/// A mail frame as stored in the stream: its own TTL travels with it (2.9 has no per-message TTL).
///   version 1 | expires ms u64 | stored ms u64 | sender 32 | frame id 16 | sealed (rest)
struct StoredMail: Equatable {
    let expiresMs: Int64
    let storedMs: Int64
    let sender: Bytes32
    let frameID: Bytes16
    let sealed: ArraySlice<UInt8>

    static let version: UInt8 = 1
    static let fixed = 1 + 8 + 8 + 32 + 16

    static func encode(expiresMs: Int64, storedMs: Int64, sender: Bytes32, frameID: Bytes16, sealed: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = [version]
        out.reserveCapacity(fixed + sealed.count)
        out += be64(UInt64(bitPattern: expiresMs)) + be64(UInt64(bitPattern: storedMs))
        out += sender.bytes + frameID.bytes
        out += sealed
        return out
    }

    static func decode(_ b: [UInt8]) -> StoredMail? {
        guard b.count >= fixed, b[0] == version else { return nil }
        return StoredMail(expiresMs: Int64(bitPattern: readBE64(b, 1)), storedMs: Int64(bitPattern: readBE64(b, 9)),
                          sender: Bytes32(unchecked: Array(b[17..<49])), frameID: Bytes16(unchecked: Array(b[49..<65])),
                          sealed: b[65...])
    }
}

private func be64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * UInt64($0))) } }
private func readBE64(_ b: [UInt8], _ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 << 8 | UInt64(b[at + $1]) } }
