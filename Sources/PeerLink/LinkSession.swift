import Signing
import RelayWire

/// What the link must do after one frame from the relay.
enum SessionAction: Equatable {
    case none
    /// Send this frame (our `auth`, a `pong`).
    case send(RelayFrame)
    /// Send these frames in order (`device-proof`, then `auth`).
    case sendAll([RelayFrame])
    /// `auth-ok`: the link is up.
    case authenticated(RelayFrame.AuthOK)
    case deliver(RelayFrame.Receive)
    /// The relay's answer about one of our frames.
    case answer(Bytes16, RelayAnswer)
    case pong(UInt64)
    case queueEmpty
    case peerGone(RelayFrame.PeerGone)
    case restarting(reconnectAfterMs: UInt32)
    /// Permanent: send `frame` if any, close, retry only after the maximum backoff (or never).
    case refuse(LinkRefusal, send: RelayFrame?)
    /// Transient: send `frame` if any, close, reconnect with backoff. `why` is for logs.
    case drop(why: String, send: RelayFrame?)
}

/// The relay's answers that name one of our frames by id.
enum RelayAnswer: Equatable { case notHere, stored, mailboxFull, dropped }

/// The device side of one relay connection (spec-wire 2.3) as a pure state machine:
/// challenge -> auth -> auth-ok | auth-refused, then open. No sockets, no timers: the caller
/// feeds frames and performs the returned action.
struct LinkSession {
    enum Phase: Equatable { case awaitChallenge, awaitAuthResult, open }

    private(set) var phase = Phase.awaitChallenge
    /// The node dialled.
    let relay: RelayURL
    /// The cluster's first node when `relay` is another (`Configuration.alternates`): its origin
    /// is also accepted, for nodes that share one `origin`.
    let cluster: RelayURL?
    let identity: SigningKey
    let account: RelayFrame.AccountProof?
    let admission: LinkAdmission

    init(relay: RelayURL, cluster: RelayURL? = nil, identity: SigningKey, account: RelayFrame.AccountProof?,
         admission: LinkAdmission) {
        self.relay = relay; self.cluster = cluster == relay ? nil : cluster
        self.identity = identity; self.account = account; self.admission = admission
    }

    var isOpen: Bool { phase == .open }

    mutating func handle(_ frame: RelayFrame) -> SessionAction {
        switch frame {
        case .ping(let v): return .send(.pong(v))
        case .unknown: return .none // forward compatibility: skipped
        case .error(let e): return relayClosed(e)
        case .restarting(let ms): return .restarting(reconnectAfterMs: ms)
        default: break
        }
        switch phase {
        case .awaitChallenge:
            guard case .challenge(let c) = frame else { return violation("\(frame.name) before challenge") }
            return answer(c)
        case .awaitAuthResult:
            switch frame {
            case .authOK(let ok): phase = .open; return .authenticated(ok)
            case .authRefused(let r): return .refuse(.authRefused(r.reason, text: r.text), send: nil)
            case .pong: return .none
            default: return violation("\(frame.name) before auth-ok")
            }
        case .open:
            switch frame {
            case .receive(let r): return .deliver(r)
            case .notHere(let id): return .answer(id, .notHere)
            case .stored(let id): return .answer(id, .stored)
            case .mailboxFull(let id): return .answer(id, .mailboxFull)
            case .dropped(let id): return .answer(id, .dropped)
            case .queueEmpty: return .queueEmpty
            case .peerGone(let g): return .peerGone(g)
            case .pong(let v): return .pong(v)
            default: return violation("\(frame.name) after auth-ok")
            }
        }
    }

    /// Checks the challenge and signs the transcript (spec-wire 2.2).
    private mutating func answer(_ c: RelayFrame.Challenge) -> SessionAction {
        guard c.version == RelayFrame.protocolVersion else {
            return .refuse(.unsupportedVersion(c.version),
                           send: .error(.init(code: .unsupportedVersion, text: "version \(c.version) is not spoken here")))
        }
        // Never sign for an origin we did not dial: the signature would open another relay's door.
        // A cluster node may name the cluster's shared origin instead of its own.
        guard let signed = [relay, cluster].compactMap({ $0 }).first(where: { $0.matchesOrigin(c.origin) }) else {
            return .refuse(.originMismatch(c.origin),
                           send: .error(.init(code: .protocolViolation, text: "challenge origin is not the one dialled")))
        }
        let deviceKey = identity.publicKey
        guard let transcript = try? RelayAuth.transcript(origin: c.origin, challenge: c.nonce, deviceKey: deviceKey) else {
            return violation("challenge origin too long")
        }
        let signature = Bytes64(unchecked: identity.sign(transcript))
        // Proofs and tokens are made for the canonical origin (RelayURL.origin), however spelled.
        let token = admission.token(signed.origin)
        let auth = RelayFrame.auth(.init(deviceKey: deviceKey, signature: signature, account: account, admissionToken: token))
        phase = .awaitAuthResult
        // The proof goes first: a relay that does not know `device-proof` skips it.
        guard let proof = admission.deviceProof(signed.origin, deviceKey) else { return .send(auth) }
        return .sendAll([.deviceProof(proof), auth])
    }

    private func relayClosed(_ e: RelayFrame.ErrorFrame) -> SessionAction {
        switch e.code {
        case .replaced: return .refuse(.replaced, send: nil)
        case .shuttingDown: return .refuse(.shuttingDown, send: nil)
        default: return .drop(why: "relay error \(e.code.rawValue): \(e.text.prefix(200))", send: nil)
        }
    }

    private func violation(_ why: String) -> SessionAction {
        .drop(why: "protocol violation: \(why)", send: .error(.init(code: .protocolViolation, text: why)))
    }
}

extension RelayFrame {
    /// The spec's name of the frame type, for logs and error texts.
    var name: String {
        switch self {
        case .challenge: "challenge"
        case .auth: "auth"
        case .authOK: "auth-ok"
        case .authRefused: "auth-refused"
        case .send: "send"
        case .receive: "receive"
        case .ack: "ack"
        case .notHere: "not-here"
        case .stored: "stored"
        case .mailboxFull: "mailbox-full"
        case .dropped: "dropped"
        case .queueEmpty: "queue-empty"
        case .deviceProof: "device-proof"
        case .accountOrder: "account-order"
        case .ping: "ping"
        case .pong: "pong"
        case .error: "error"
        case .restarting: "restarting"
        case .peerGone: "peer-gone"
        case .unknown(let t): "unknown type \(t)"
        }
    }
}
