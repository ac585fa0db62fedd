// What values look like in logs. Prompts, answers, secrets and tokens never reach a log: the
// descriptions of every value that may hold them name sizes only. Keys and ids print as hex.
import Basics

extension FixedBytes {
    /// Lowercase hex (also for a Secret32: call it only to store or send the secret, never to log).
    public var hex: String { hexString(bytes) }
}

extension Bytes16: CustomStringConvertible { public var description: String { hex } }
extension Bytes32: CustomStringConvertible { public var description: String { hex } }
extension Bytes64: CustomStringConvertible { public var description: String { hex } }

/// A value whose debug form (`debugPrint`, `String(reflecting:)`, a test failure) would show its
/// fields, a prompt, an answer or a secret among them: it is its `description` instead.
public protocol LogDescribed: CustomStringConvertible, CustomDebugStringConvertible {}

extension LogDescribed {
    public var debugDescription: String { description }
}

extension Secret32: LogDescribed {
    public var description: String { "<secret>" }
}

extension RelayFrame: LogDescribed {
    public var description: String {
        switch self {
        case .challenge(let c): "challenge(v\(c.version), origin \(c.origin))"
        case .auth(let a): "auth(device \(a.deviceKey), account \(a.account != nil), token \(a.admissionToken != nil))"
        case .authOK(let o): "auth-ok(time \(o.serverTimeMs))"
        case .authRefused(let r): "auth-refused(\(r.reason.rawValue))"
        case .send(let s): "send(to \(s.recipient), \(s.deliveryClass), id \(s.frameID), \(s.sealed.count) B)"
        case .receive(let r): "receive(from \(r.sender), \(r.deliveryClass), id \(r.frameID), \(r.sealed.count) B)"
        case .ack(let id): "ack(\(id))"
        case .notHere(let id): "not-here(\(id))"
        case .stored(let id): "stored(\(id))"
        case .mailboxFull(let id): "mailbox-full(\(id))"
        case .dropped(let id): "dropped(\(id))"
        case .queueEmpty: "queue-empty"
        case .deviceProof(let p): "device-proof(account \(p.accountKey), roster \(p.rosterVersion))"
        case .accountOrder(let o): "account-order(account \(o.accountKey), kind \(o.kind))"
        case .ping(let v): "ping(\(v))"
        case .pong(let v): "pong(\(v))"
        case .error(let e): "error(\(e.code.rawValue))"
        case .restarting(let ms): "restarting(\(ms) ms)"
        case .peerGone(let g): "peer-gone(\(g.peer), \(g.reason))"
        case .unknown(let t): "unknown(type \(t))"
        }
    }
}

