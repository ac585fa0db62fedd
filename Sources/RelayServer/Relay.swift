import Basics
import Glibc
import Transport
import RelayWire

/// The relay: a WebSocket server on one event loop, forwarding frames between devices by key.
///
///     let relay = try Relay(configuration: config, loop: loop)   // on the loop thread
///     relay.port                                                 // the bound port
///
/// Everything runs on `loop` (no locks on the hot path). `serve` runs a whole process.
public final class Relay: @unchecked Sendable {
    public let configuration: RelayConfig
    public let loop: EventLoop
    let hub: Hub
    private let server: WebSocketServer
    private var metricsServer: HTTPServer?
    private let tls: TLSServerContext?
    private var timers: [TimerHandle] = []
    private var stopped = false

    /// Opens the mailbox, reads the admission files, binds the listener and starts the timers.
    /// Loop thread only.
    public init(configuration c: RelayConfig, loop: EventLoop, logger: Logger? = nil) throws(RelayError) {
        try c.validate()
        configuration = c
        self.loop = loop
        let log = logger ?? Logger(level: c.logLevel)
        do { try ensureDirectory(c.dataDir) } catch { throw .unreadableFile(key: "data-dir", path: c.dataDir, reason: error.reason) }
        let mailbox = try Mailbox(path: c.dataDir + "/mailbox.sqlite3", quotas: MailQuotas(c), durability: c.durability)
        let hub = Hub(config: c, loop: loop, log: log, mailbox: mailbox, admission: try Admission(config: c, ledgerPath: c.dataDir + "/admission-orders.log"))
        self.hub = hub
        if c.cluster.enabled {
            do { hub.cluster = try ClusterNode.start(c, hub: hub) } catch { mailbox.close(); throw error }
        }
        do {
            tls = try c.tlsCert.map { cert throws(TransportError) in try TLSServerContext(certificateFile: cert, keyFile: c.tlsKey ?? "", recordLayer: c.tlsRecordLayer) }
            server = try WebSocketServer(loop: loop, configuration: Self.serverConfiguration(c), tls: tls,
                                         onUpgrade: { [weak hub] ws in hub?.accept(ws) },
                                         endpoint: { [weak hub] req in hub.flatMap { Endpoints.answer(req, hub: $0) } })
        } catch {
            hub.cluster?.stop()
            mailbox.close()
            throw .transport("\(error)")
        }
        do { metricsServer = try Endpoints.metricsServer(c, loop: loop, hub: hub) } catch {
            server.close()
            hub.cluster?.stop()
            mailbox.close()
            throw .transport("metrics-listen \(c.limits.metricsHost ?? ""):\(c.limits.metricsPort): \(error); "
                             + "pick a free port (--metrics-listen 127.0.0.1:PORT) or --metrics-listen off")
        }
        let listener = server.listener
        hub.listenerStats = { [unowned listener] in
            .init(refusedPerAddress: listener.refusedPerHostCount, refusedFull: listener.refusedCount,
                  evictedPending: listener.evictedCount, pending: listener.pendingCount)
        }
        if c.origin == nil {
            var bound = c
            bound.listenPort = server.port
            hub.origin = bound.effectiveOrigin
        }
        hub.loadAdmissionLedger()
        hub.sweepMail()
        schedule(every: c.sweepInterval) { $0.hub.sweepMail() }
        schedule(every: c.pingInterval) { $0.hub.pingAll() }
        log.info("listening on \(c.listenHost):\(server.port) origin=\(hub.origin) tls=\(tls != nil) admission=\(c.admission.rawValue)"
                 + (hub.cluster.map { " cluster-node=\($0.node)" } ?? "")
                 + (metricsServer.map { " metrics=\(c.limits.metricsHost ?? ""):\($0.port)" } ?? ""))
    }

    /// The port of the loopback `/metrics` listener (nil when metrics-listen is off).
    public var metricsPort: UInt16? { metricsServer?.port }

    /// The bound port (the configured one, or the one picked for port 0).
    public var port: UInt16 { server.port }

    static func serverConfiguration(_ c: RelayConfig) -> WebSocketServer.Configuration {
        var w = WebSocketServer.Configuration()
        w.listener.host = c.listenHost
        w.listener.port = c.listenPort
        w.listener.maxConnections = c.maxConnections
        w.listener.maxAcceptsPerTurn = c.acceptBurst
        w.listener.maxAcceptsPerSecond = c.acceptRate
        let l = c.limits
        w.listener.hosts.maxConnections = l.ipMaxConnections
        w.listener.hosts.maxPending = l.ipMaxPending
        w.listener.hosts.acceptsPerSecond = l.ipAcceptRate
        w.listener.hosts.acceptBurst = l.ipAcceptBurst
        w.listener.hosts.maxPendingTotal = l.maxPending
        w.listener.hosts.pressurePending = max(1, l.maxPending / 2)
        w.listener.exemptHosts = Set(l.trustedProxies)
        w.trustedProxies = Set(l.trustedProxies)
        w.proxyProtocol = l.proxyProtocol == .v1
        w.pressureHeaderTimeout = l.pressureHeaderTimeout
        w.messageTimeout = l.messageTimeout
        w.connection.highWaterMark = c.socketBufferBytes
        // Room for the socket buffer, one frame past it, and control frames of a frozen receiver;
        // beyond that the connection is cut (memory per peer stays bounded).
        w.connection.maxQueuedBytes = c.socketBufferBytes + 2 * Limits.maxFrame + 1024 * 1024
        w.connection.writeTimeout = c.writeTimeout
        w.connection.userTimeout = c.tcpUserTimeout
        w.connection.idleTimeout = nil // the hub's ping sweep closes idle devices with a reason
        w.headerTimeout = c.headerTimeout
        // Up to one byte past the protocol's largest frame reaches the hub, which answers
        // frame-too-large against the configured limit; larger messages are cut by the codec (1009).
        w.maxMessageSize = Limits.maxFrame + 1
        w.closeTimeout = c.closeTimeout
        return w
    }

    private func schedule(every period: Duration, _ body: @escaping (Relay) -> Void) {
        func arm() {
            loop.schedule(after: period) { [weak self] in
                guard let self, !self.stopped else { return }
                body(self)
                arm()
            }
        }
        arm()
    }

    /// SIGHUP: re-reads the admission files and the TLS certificate; open connections stay.
    /// A file that fails to load keeps the old one (and the error is returned and logged).
    @discardableResult
    public func reload() -> [String] {
        var problems: [String] = []
        do { try hub.admission.reload() } catch { problems.append(error.description) }
        do { try tls?.reload() } catch { problems.append("TLS reload: \(error)") }
        for p in problems { hub.log.error("reload: \(p); keeping the previous settings") }
        if problems.isEmpty { hub.log.info("reloaded admission files\(tls == nil ? "" : " and TLS certificate")") }
        return problems
    }

    /// SIGTERM: stop accepting, send `restarting` to every device, close every connection, then
    /// flush and close the store and call `completion` (on the loop) once all are closed or the
    /// close timeout has passed.
    public func shutdown(completion: @escaping () -> Void) {
        guard !stopped else { completion(); return }
        stopped = true
        hub.log.info("shutting down: telling \(hub.connectionCount) connection(s) to reconnect later")
        server.close()
        metricsServer?.close()
        hub.shutdown(reconnectAfter: configuration.restartDelay)
        let deadline = monotonicNanos() + UInt64(configuration.closeTimeout.milliseconds) * 1_000_000 + 100_000_000
        func check() {
            if hub.connectionCount == 0 || monotonicNanos() >= deadline {
                hub.cluster?.stop()
                hub.mailbox.close()
                hub.log.info("stopped")
                completion()
            } else {
                loop.schedule(after: .milliseconds(10)) { check() }
            }
        }
        check()
    }

    /// Installs SIGTERM/SIGINT (shutdown, then `onStopped`) and SIGHUP (reload). One relay per
    /// process: signal delivery is per process.
    public func handleSignals(onStopped: @escaping () -> Void) throws(RelayError) {
        do {
            try loop.onSignal(SIGHUP) { [weak self] in _ = self?.reload() }
            for sig in [SIGTERM, SIGINT] {
                try loop.onSignal(sig) { [weak self] in self?.shutdown(completion: onStopped) }
            }
        } catch {
            throw .transport("signals: \(error)")
        }
    }
}
