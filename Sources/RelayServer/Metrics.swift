import RelayWire

/// Counters of the relay, rendered as Prometheus text at `GET /metrics`. Loop thread only:
/// plain integers, no atomics on the hot path.
struct Metrics {
    /// Why a frame or connection was dropped.
    enum DropReason: String, CaseIterable {
        /// A live frame's receiver had a full send queue.
        case receiverSlow = "receiver-slow"
        /// A connection over its rate limit (closed).
        case rateLimited = "rate-limited"
        /// A malformed frame (connection closed).
        case malformed
        /// A frame not allowed in the connection's state (connection closed).
        case protocolViolation = "protocol-violation"
    }

    enum MailEvent: String, CaseIterable {
        case stored, delivered, acked, expired, replaced, duplicate
        case refusedFull = "refused-full"
    }

    enum AuthFailure: String, CaseIterable {
        case badSignature = "bad-signature", notAdmitted = "not-admitted", badToken = "bad-token"
        case badAccountProof = "bad-account-proof", timeout, frameBeforeAuth = "frame-before-auth"
        /// Refused without a check: the address failed too often (auth-failure-rate / -burst).
        case rateLimited = "rate-limited"
        /// The account already has `account-max-connections` authenticated connections.
        case accountConnections = "account-connections"
    }

    enum Direction: String { case `in`, out }

    var connectionsAccepted = 0
    var replaced = 0
    /// Data frames and their bytes by direction and class: fixed slots, so counting a frame
    /// builds no label string and hashes nothing (two counts per forwarded frame).
    private(set) var frames = FrameCounts()
    private(set) var bytes = FrameCounts()
    var notHere = 0
    var drops: [DropReason: Int] = [:]
    var mail: [MailEvent: Int] = [:]
    var authFailures: [AuthFailure: Int] = [:]
    var authSuccesses = 0
    var mailRefused: [MailRefusal: Int] = [:]
    /// `peer-gone` frames sent, by reason (closed, replaced, silent).
    var peerGone: [String: Int] = [:]
    /// Liveness probes: sent, answered, unanswered (the device was closed).
    var probes: [String: Int] = [:]

    /// The listener's per-address limits at scrape time.
    struct ListenerStats {
        var refusedPerAddress = 0
        var refusedFull = 0
        var evictedPending = 0
        var pending = 0
    }

    mutating func frame(_ d: Direction, _ c: DeliveryClass, bytes n: Int) {
        frames.add(1, d, c)
        bytes.add(n, d, c)
    }

    /// in/out × live/mail.
    struct FrameCounts {
        private var inLive = 0, inMail = 0, outLive = 0, outMail = 0

        mutating func add(_ n: Int, _ d: Direction, _ c: DeliveryClass) {
            switch (d, c) {
            case (.in, .live): inLive += n
            case (.in, .mail): inMail += n
            case (.out, .live): outLive += n
            case (.out, .mail): outMail += n
            }
        }

        /// The Prometheus samples of the slots counted at all, in label order.
        var samples: [(String, Int)] {
            [("in", "live", inLive), ("in", "mail", inMail), ("out", "live", outLive), ("out", "mail", outMail)]
                .filter { $0.2 > 0 }.map { ("direction=\"\($0.0)\",class=\"\($0.1)\"", $0.2) }
        }
    }

    mutating func drop(_ r: DropReason) { drops[r, default: 0] += 1 }
    mutating func mail(_ e: MailEvent, _ n: Int = 1) { mail[e, default: 0] += n }
    mutating func authFailed(_ f: AuthFailure) { authFailures[f, default: 0] += 1 }

    /// Gauges read at scrape time.
    struct Gauges {
        var connections = 0
        var authenticated = 0
        var queuedFrames = 0
        var queuedBytes = 0
        var socketQueuedBytes = 0
        var storedMail = 0
        var storedMailBytes = 0
        var listener = ListenerStats()
    }

    func render(_ g: Gauges) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Int)]) {
            out += "# HELP homebase_relay_\(name) \(help)\n# TYPE homebase_relay_\(name) \(type)\n"
            for (labels, v) in samples {
                out += "homebase_relay_\(name)\(labels.isEmpty ? "" : "{\(labels)}") \(v)\n"
            }
        }
        metric("connections", "gauge", "Open WebSocket connections by state.",
               [("state=\"awaiting-auth\"", g.connections - g.authenticated), ("state=\"authenticated\"", g.authenticated)])
        metric("connections_accepted_total", "counter", "WebSocket connections accepted.", [("", connectionsAccepted)])
        metric("connections_replaced_total", "counter", "Connections closed because the same key connected again.", [("", replaced)])
        metric("auth_successes_total", "counter", "Successful authentications.", [("", authSuccesses)])
        metric("auth_failures_total", "counter", "Refused or failed authentications by reason.",
               AuthFailure.allCases.map { ("reason=\"\($0.rawValue)\"", authFailures[$0, default: 0]) })
        metric("frames_total", "counter", "Data frames by direction and class.", frames.samples)
        metric("bytes_total", "counter", "Data frame bytes by direction and class.", bytes.samples)
        metric("not_here_total", "counter", "Live frames answered not-here.", [("", notHere)])
        metric("drops_total", "counter", "Frames dropped or connections cut, by reason.",
               DropReason.allCases.map { ("reason=\"\($0.rawValue)\"", drops[$0, default: 0]) })
        metric("peer_gone_total", "counter", "peer-gone frames sent, by reason.",
               ["closed", "replaced", "silent"].map { ("reason=\"\($0)\"", peerGone[$0, default: 0]) })
        metric("liveness_probes_total", "counter", "Liveness probes of quiet recipients, by outcome.",
               ["sent", "answered", "unanswered"].map { ("outcome=\"\($0)\"", probes[$0, default: 0]) })
        metric("mail_total", "counter", "Mailbox events.", MailEvent.allCases.map { ("event=\"\($0.rawValue)\"", mail[$0, default: 0]) })
        metric("mail_refused_total", "counter", "Mail frames refused (mailbox-full), by the quota they passed.",
               MailRefusal.allCases.map { ("reason=\"\($0.rawValue)\"", mailRefused[$0, default: 0]) })
        metric("connections_refused_total", "counter", "Sockets closed at accept, or pending connections evicted, by reason.",
               [("reason=\"per-address\"", g.listener.refusedPerAddress), ("reason=\"max-connections\"", g.listener.refusedFull),
                ("reason=\"evicted-pending\"", g.listener.evictedPending)])
        metric("connections_pending", "gauge", "Connections not yet authenticated (upgrade or auth pending).", [("", g.listener.pending)])
        metric("mail_stored", "gauge", "Mail frames in the mailbox.", [("", g.storedMail)])
        metric("mail_stored_bytes", "gauge", "Sealed bytes in the mailbox.", [("", g.storedMailBytes)])
        metric("send_queue_frames", "gauge", "Data frames waiting in the relay's send queues.", [("", g.queuedFrames)])
        metric("send_queue_bytes", "gauge", "Data bytes waiting in the relay's send queues.", [("", g.queuedBytes)])
        metric("socket_queue_bytes", "gauge", "Bytes waiting in connections' socket buffers.", [("", g.socketQueuedBytes)])
        return out
    }
}
