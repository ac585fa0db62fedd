// TEST FAKE. A scripted relay for PeerLinkTests only: NOT the Homebase relay (that is the
// RelayServer module, written separately). It follows protocol/spec-wire.md 2.3 (challenge,
// signature check over its own origin and nonce, auth-ok / auth-refused, replaced, live routing
// with not-here, mail store / stored / mailbox-full / delivery on connect / queue-empty / ack,
// ping -> pong) and lets each test script faults: refuse auth, swallow mail, stop answering
// pings (a dead link), drop TCP, send `restarting`, deliver a frame twice.
import Dispatch
import Signing
import Synchronization
import Transport
import Wire

final class ScriptedRelay: @unchecked Sendable {
    /// What the relay does; tests change it at any time (read on the relay's loop).
    struct Script {
        /// Refuse every `auth` with this reason.
        var refuse: AuthRefusalReason?
        /// Require this admission token (refused `bad-token` otherwise).
        var requiredToken: [UInt8]?
        /// Answer `ping` with `pong`; false plays a dead link (nothing is sent at all).
        var answerPings = true
        /// Store mail and answer `stored`; false swallows mail frames without an answer.
        var storeMail = true
        /// Deliver every mail `receive` twice back to back (a redelivery).
        var deliverTwice = false
        var mailboxCapacity = 64
    }

    /// What the relay saw (read by tests).
    struct Record {
        var connections = 0
        var authOK = 0
        var refusals = 0
        var pings = 0
        var sends: [Bytes16] = []
        var acks: [Bytes16] = []
        var accountKeys: [Bytes32] = []
    }

    struct Mail { var sender: Bytes32; var frameID: Bytes16; var sealed: [UInt8]; var storedAt: ContinuousClock.Instant }

    let loop: EventLoop
    let script = Mutex(Script())
    let record = Mutex(Record())
    private(set) var port: UInt16 = 0
    private(set) var origin = ""
    /// What its challenges name (`origin` unless told otherwise).
    private(set) var challengeOrigin = ""
    // Loop-thread state.
    private var server: WebSocketServer?
    var sessions: [ObjectIdentifier: RelaySession] = [:]
    var mailboxes: [Bytes32: [Mail]] = [:]
    /// Every mail frame ever delivered, for scripted redelivery.
    var delivered: [Bytes16: (to: Bytes32, mail: Mail)] = [:]

    /// `origin`: the origin its challenges name (a cluster node sharing the cluster's); default its own.
    init(tls: TLSServerContext? = nil, origin named: String? = nil) throws {
        loop = try EventLoop()
        try loop.start()
        let box = LoopBox<ScriptedRelay>(self)
        let (p, o): (UInt16, String) = try onLoopSync(loop) {
            var cfg = WebSocketServer.Configuration()
            cfg.closeTimeout = .milliseconds(200)
            let relay = box.value
            let server = try WebSocketServer(loop: relay.loop, configuration: cfg, tls: tls) { ws in relay.accept(ws) }
            relay.server = server
            relay.port = server.port
            relay.origin = "\(tls == nil ? "ws" : "wss")://127.0.0.1:\(server.port)"
            return (server.port, relay.origin)
        }
        port = p; origin = o
        challengeOrigin = named ?? o
    }

    /// `ws://127.0.0.1:port/v1/connect` (or wss).
    var url: String { origin + "/v1/connect" }

    func stop() {
        loop.execute { [self] in server?.close() }
        loop.shutdown()
        loop.join()
    }

    // MARK: controls (any thread)

    /// Drops every TCP connection at once, without a close frame (a crash or a cut cable).
    func dropAll() { onLoop { $0.sessions.values.forEach { $0.ws.connection.close(flush: false) } } }

    /// Sends `restarting` to every connection, then closes them.
    func restart(reconnectAfterMs ms: UInt32) {
        onLoop { relay in
            for s in relay.sessions.values { s.send(.restarting(reconnectAfterMs: ms)); s.ws.close(code: .goingAway) }
        }
    }

    /// Delivers an already delivered mail frame again (as after a relay restart that lost the ack).
    func redeliver(_ id: Bytes16) { onLoop { $0.deliverAgain(id) } }

    /// Stops accepting new connections (existing ones stay).
    func stopListening() { onLoop { $0.server?.close() } }

    func update(_ change: (inout Script) -> Void) { script.withLock { change(&$0) } }
    var seen: Record { record.withLock { $0 } }
    var current: Script { script.withLock { $0 } }

    private func onLoop(_ body: @escaping (ScriptedRelay) -> Void) {
        let box = LoopBox(body)
        loop.execute { [self] in box.value(self) }
    }

    // MARK: loop thread

    private func accept(_ ws: WebSocket) {
        record.withLock { $0.connections += 1 }
        let s = RelaySession(relay: self, ws: ws)
        sessions[ObjectIdentifier(s)] = s
        ws.onMessage = { [weak s] _, msg in s?.received(msg) }
        ws.onClose = { [weak self, weak s] _, _, _ in
            guard let self, let s else { return }
            self.sessions[ObjectIdentifier(s)] = nil
        }
        s.sendChallenge()
    }

    func session(for key: Bytes32) -> RelaySession? {
        sessions.values.first { $0.deviceKey == key && $0.open }
    }

    /// Admitted: replace an older connection, then deliver the backlog and `queue-empty`.
    func admitted(_ s: RelaySession) {
        for other in sessions.values where other !== s && other.deviceKey == s.deviceKey {
            other.send(.error(.init(code: .replaced, text: "replaced by a newer connection")))
            other.ws.close()
            other.open = false
        }
        for mail in mailboxes[s.deviceKey!] ?? [] { deliver(mail, to: s) }
        s.send(.queueEmpty)
    }

    func deliver(_ mail: Mail, to s: RelaySession) {
        let held = UInt64((ContinuousClock.now - mail.storedAt).components.seconds * 1000)
        let frame = RelayFrame.receive(.init(sender: mail.sender, deliveryClass: .mail, frameID: mail.frameID,
                                             heldMs: held, sealed: mail.sealed))
        delivered[mail.frameID] = (s.deviceKey!, mail)
        s.send(frame)
        if current.deliverTwice { s.send(frame) }
    }

    private func deliverAgain(_ id: Bytes16) {
        guard let d = delivered[id], let s = session(for: d.to) else { return }
        s.send(.receive(.init(sender: d.mail.sender, deliveryClass: .mail, frameID: id, heldMs: 0, sealed: d.mail.sealed)))
    }
}

/// A non-Sendable value crossing onto the loop thread, where alone it is used.
struct LoopBox<T>: @unchecked Sendable {
    let value: T
    init(_ v: T) { value = v }
}

/// Runs `body` on `loop` and waits for its result (test setup only: blocks the caller).
func onLoopSync<T>(_ loop: EventLoop, _ body: @escaping () throws -> T) throws -> T {
    let slot = SyncSlot<T>()
    let work = LoopBox(body)
    loop.execute {
        slot.result = Result { try work.value() }
        slot.done.signal()
    }
    guard slot.done.wait(timeout: .now() + .seconds(30)) == .success else { throw SetupError("loop did not run the work") }
    return try slot.result!.get()
}

/// One result handed from the loop thread to a waiting test thread.
final class SyncSlot<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
    let done = DispatchSemaphore(value: 0)
}
