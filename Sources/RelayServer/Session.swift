import Basics
import Transport
import RelayWire

/// One device connection: its state, its send queue and its one read path. Loop thread only.
final class Session {
    /// What the relay knows of an authenticated device and of its mail delivery.
    struct Peer {
        let key: Bytes32
        /// The account key of a verified account proof, if the device presented one.
        var account: Bytes32?
        /// Highest mailbox `seq` handed to this connection (delivery is in seq order).
        var mailCursor: Int64 = 0
        /// True until the stored backlog is delivered and `queue-empty` queued.
        var backlogPending = true
        /// Mail may be stored beyond `mailCursor` that did not fit the send queue yet.
        var mailWaiting = false

        init(key: Bytes32, account: Bytes32? = nil) { self.key = key; self.account = account }
    }

    enum State {
        /// The challenge was sent; `auth` must answer it before `deadline` fires.
        case awaitingAuth(nonce: Bytes32, deadline: TimerHandle)
        case authenticated(Peer)
        /// An `error` or `auth-refused` was sent; everything read is ignored until the close.
        case closing
    }

    let ws: WebSocket
    var state: State
    @exclusivity(unchecked) var queue: SendQueue // no callbacks inside: see Hub.limiter
    /// Monotonic ns of the last frame or pong read: the idle deadline and the liveness probe.
    var lastHeard: UInt64
    /// Fires at `lastHeard + idle-timeout` (Liveness.swift).
    var idleTimer: TimerHandle?
    /// A liveness probe waiting for any sign of life (Liveness.swift), the live frames forwarded
    /// meanwhile, and its timer (a ping due, or the pong's deadline; outlives an answered probe).
    var probe: Probe?
    /// (sender key 32 | frame id 16) records, `Probe.record` bytes each, copied in place from the
    /// forwarded frames: a probe per forward (a device that answers every frame) allocates nothing.
    @exclusivity(unchecked) var probeWaiting: [UInt8] = [] // see Hub.limiter
    var probeTimer: TimerHandle?
    /// The route of this device's last live send (Hub.route): the recipient's session while
    /// the routing table has not changed since. Cleared when this connection closes.
    struct Route {
        let generation: UInt64
        let key: Bytes32
        let target: Session
    }
    var lastRoute: Route?
    /// This device's bucket in `Hub.limiter` (its key's slot) and the limiter generation it is good for.
    var rateSlot: (generation: UInt64, slot: Int)?
    /// Who exchanged live frames with this device lately: told `peer-gone` when it leaves.
    @exclusivity(unchecked) var correspondents = Correspondents() // see Hub.limiter
    /// For logs: the peer address, and the key once known.
    let peer: String
    /// The client address (behind a trusted proxy: the one it names): what per-address limits count.
    let host: String
    /// Admission by account: the `device-proof` sent before `auth`, then the account that
    /// admitted this connection and its proof's roster version (revocations check them).
    var pendingProof: RelayFrame.DeviceProof?
    var admittedBy: Bytes32?
    var proofVersion: UInt64?

    init(ws: WebSocket, queue: SendQueue, now: UInt64) {
        self.ws = ws
        self.queue = queue
        lastHeard = now
        peer = ws.connection.peer
        host = ws.connection.host
        state = .closing // set to awaitingAuth by the hub with the challenge
    }

    var key: Bytes32? {
        if case .authenticated(let p) = state { return p.key }
        return nil
    }

    var isClosing: Bool {
        if case .closing = state { return true }
        return false
    }

    /// Short name for logs: a key prefix once authenticated, else the address.
    var name: String { key.map { shortKey($0) } ?? peer }

    /// Sends a control frame now, bypassing the data queue.
    func control(_ f: RelayFrame) {
        ws.send(binary: ForwardCodec.control(f))
    }

    /// Mutates the peer state of an authenticated session (no-op otherwise).
    func updatePeer(_ body: (inout Peer) -> Void) {
        guard case .authenticated(var p) = state else { return }
        body(&p)
        state = .authenticated(p)
    }
}

/// The first 8 bytes of a key in hex (16 digits, no ellipsis): the relay's log form.
func shortKey(_ k: Bytes32) -> String { Basics.shortKey(k.bytes, hexDigits: 16, ellipsis: false) }
