import CNats
import Glibc
import Synchronization

/// One node's connection to NATS (libnats: reconnect, cluster discovery, TLS, pings).
///
/// `@unchecked Sendable`: libnats calls back on its own threads, and its connection and
/// JetStream context are documented thread-safe; the pointers are owned here, set once in
/// `init` and freed once in `close` (after which every call is refused under `lock`).
public final class NatsConnection: @unchecked Sendable {
    public enum State: String, Sendable { case connected, reconnecting, disconnected, closed }

    private let lock = Mutex<Bool>(false) // true once closed
    private let nc: OpaquePointer
    let js: OpaquePointer
    private let events: EventBox
    public let settings: NatsSettings

    /// Connects (blocking, up to `settings.timeoutMs` per server). `onState`: called on a libnats
    /// thread when the link drops, comes back or closes.
    public init(_ s: NatsSettings, onState: @escaping @Sendable (State) -> Void = { _ in }) throws(ClusterError) {
        settings = s
        _ = nats_Open(-1)
        var opts: OpaquePointer?
        try ClusterError.check(natsOptions_Create(&opts), "options")
        guard let opts else { throw .unexpected("no options") }
        defer { natsOptions_Destroy(opts) }
        let box = EventBox(onState)
        events = box
        try Self.configure(opts, s, box)
        var conn: OpaquePointer?
        try ClusterError.check(natsConnection_Connect(&conn, opts), "connect to \(s.servers.joined(separator: ","))")
        guard let conn else { throw .unexpected("no connection") }
        nc = conn
        var jsOpts = jsOptions()
        jsOptions_Init(&jsOpts)
        jsOpts.Wait = s.timeoutMs
        var ctx: OpaquePointer?
        do { try ClusterError.check(natsConnection_JetStream(&ctx, conn, &jsOpts), "jetstream context") } catch {
            natsConnection_Destroy(conn)
            throw error
        }
        guard let ctx else { natsConnection_Destroy(conn); throw .unexpected("no JetStream context") }
        js = ctx
    }

    private static func configure(_ opts: OpaquePointer, _ s: NatsSettings, _ box: EventBox) throws(ClusterError) {
        var urls = s.servers.map { strdup($0) }
        defer { urls.forEach { free($0) } }
        let st = urls.withUnsafeMutableBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: b.count) {
                natsOptions_SetServers(opts, $0, Int32(b.count))
            }
        }
        try ClusterError.check(st, "servers")
        try ClusterError.check(natsOptions_SetName(opts, s.name), "name")
        // In the order given: a node lists its own (nearest) NATS server first.
        try ClusterError.check(natsOptions_SetNoRandomize(opts, true), "server order")
        // Each publish written at once: without it libnats' flusher waits 1 ms per hop, and a
        // cross-node round trip was 2.0 ms to the microsecond (bench-relay --cluster).
        try ClusterError.check(natsOptions_SetSendAsap(opts, true), "send asap")
        if let u = s.user { try ClusterError.check(natsOptions_SetUserInfo(opts, u, s.password ?? ""), "user") }
        if let c = s.credentialsFile { try ClusterError.check(natsOptions_SetUserCredentialsFromFiles(opts, c, nil), "credentials \(c)") }
        if let pub = s.nkeyPublic, let seed = s.nkeySeedFile {
            try ClusterError.check(natsOptions_SetNKeyFromSeed(opts, pub, seed), "nkey seed \(seed)")
        }
        if let ca = s.caFile {
            try ClusterError.check(natsOptions_SetSecure(opts, true), "tls")
            try ClusterError.check(natsOptions_LoadCATrustedCertificates(opts, ca), "tls ca \(ca)")
        }
        try ClusterError.check(natsOptions_SetTimeout(opts, s.timeoutMs), "timeout")
        try ClusterError.check(natsOptions_SetPingInterval(opts, s.pingIntervalMs), "ping interval")
        try ClusterError.check(natsOptions_SetMaxPingsOut(opts, Int32(s.maxPingsOut)), "max pings out")
        try ClusterError.check(natsOptions_SetMaxReconnect(opts, -1), "max reconnect")
        try ClusterError.check(natsOptions_SetReconnectWait(opts, s.reconnectWaitMs), "reconnect wait")
        // Retained for libnats: its callbacks may run after this object is gone (the closed
        // callback comes on its own thread after `close`); released by that last callback.
        let ctx = Unmanaged.passRetained(box).toOpaque()
        try ClusterError.check(natsOptions_SetDisconnectedCB(opts, { _, c in EventBox.from(c).fire(.reconnecting) }, ctx), "callback")
        try ClusterError.check(natsOptions_SetReconnectedCB(opts, { _, c in EventBox.from(c).fire(.connected) }, ctx), "callback")
        try ClusterError.check(natsOptions_SetClosedCB(opts, { _, c in
            EventBox.from(c).fire(.closed)
            Unmanaged<EventBox>.fromOpaque(c!).release()
        }, ctx), "callback")
    }

    public var state: State {
        if lock.withLock({ $0 }) { return .closed }
        switch natsConnection_Status(nc) {
        case NATS_CONN_STATUS_CONNECTED: return .connected
        case NATS_CONN_STATUS_RECONNECTING, NATS_CONN_STATUS_CONNECTING: return .reconnecting
        case NATS_CONN_STATUS_CLOSED: return .closed
        default: return .disconnected
        }
    }

    /// Publishes (buffered, never blocks on the network); `reply` asks for an answer there.
    public func publish(_ subject: String, _ data: [UInt8], reply: String? = nil) throws(ClusterError) {
        guard !lock.withLock({ $0 }) else { throw .unexpected("connection closed") }
        let st = data.withUnsafeBytes { b in
            if let reply { return natsConnection_PublishRequest(nc, subject, reply, b.baseAddress, Int32(b.count)) }
            return natsConnection_Publish(nc, subject, b.baseAddress, Int32(b.count))
        }
        try ClusterError.check(st, "publish")
    }

    /// A round trip to the server: every subscription made before it is known there. Blocks.
    public func flush(timeoutMs: Int64? = nil) throws(ClusterError) {
        guard !lock.withLock({ $0 }) else { throw .unexpected("connection closed") }
        try ClusterError.check(natsConnection_FlushTimeout(nc, timeoutMs ?? settings.timeoutMs), "flush")
    }

    /// Subscribes; `handler` runs on a libnats thread for every message. Does not block.
    public func subscribe(_ subject: String, _ handler: @escaping @Sendable (NatsMessage) -> Void) throws(ClusterError) -> NatsSubscription {
        guard !lock.withLock({ $0 }) else { throw .unexpected("connection closed") }
        return try NatsSubscription(nc, subject, handler)
    }

    /// Closes the link (pending publishes are flushed by libnats first) and frees it.
    public func close() {
        let first = lock.withLock { closed in defer { closed = true }; return !closed }
        guard first else { return }
        jsCtx_Destroy(js)
        natsConnection_Close(nc)
        natsConnection_Destroy(nc)
    }

    deinit { close() }
}

/// The state callbacks' context: retained for libnats, released by its closed callback (a
/// connection that never connected may never call it: one small box leaks then).
final class EventBox: Sendable {
    let body: @Sendable (NatsConnection.State) -> Void
    init(_ body: @escaping @Sendable (NatsConnection.State) -> Void) { self.body = body }
    func fire(_ s: NatsConnection.State) { body(s) }
    static func from(_ p: UnsafeMutableRawPointer?) -> EventBox { Unmanaged<EventBox>.fromOpaque(p!).takeUnretainedValue() }
}
