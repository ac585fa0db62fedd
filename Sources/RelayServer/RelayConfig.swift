import Glibc
import RelayWire
import Transport

/// Every setting of the relay with its default. Loaded by `ConfigLoader` (defaults < config file
/// < environment < flags); tests build one directly with millisecond timeouts.
public struct RelayConfig: Sendable, Equatable {
    /// Address to listen on (numeric IPv4/IPv6). 0.0.0.0 for a relay that terminates TLS itself.
    public var listenHost = "127.0.0.1"
    /// TCP port; 0 picks a free one (tests).
    public var listenPort: UInt16 = 8080
    /// Directory of the mailbox database (`mailbox.sqlite3`); created 0700 if missing.
    public var dataDir = RelayConfig.defaultDataDir()
    /// PEM certificate chain; with `tlsKey` the relay terminates TLS itself.
    public var tlsCert: String?
    /// PEM private key of `tlsCert`.
    public var tlsKey: String?
    /// Who protects TLS 1.3 records once OpenSSL's handshake is done (`TLSRecordLayerChoice`).
    public var tlsRecordLayer = TLSRecordLayerChoice.own
    /// The origin devices dial and sign over (`wss://host:port`); nil derives it from listen + TLS.
    /// Behind a proxy, set it to the public URL's origin, e.g. `wss://relay.example.com`.
    public var origin: String?
    /// Who may authenticate: anyone, allowlisted keys, or token holders.
    public var admission = AdmissionMode.open
    /// Hex device or account keys, one per line (`#` comments); re-read on SIGHUP.
    public var allowlistFile: String?
    /// Admission tokens, one per line (`#` comments); re-read on SIGHUP.
    public var tokenFile: String?
    // Admission by account (helper "admission"): no per-device edits.
    /// Account keys whose `device-proof`s and `account-order`s this relay honours (allowlist mode).
    public var allowAccounts: [Bytes32] = []
    /// A `device-proof` valid for longer than this from now is refused (and revocations are kept this long).
    public var proofMaxLifetime: Duration = .seconds(400 * 86_400)
    /// Token registrations (by an allowed account) kept per account at most.
    public var maxTokensPerAccount = 1_000

    /// TTL of a mail frame that asks for none (ttl 0).
    public var mailTTL: Duration = .seconds(7 * 86_400)
    /// Longest TTL honoured; longer ones are shortened (announced in `auth-ok`).
    public var maxTTL: Duration = .seconds(30 * 86_400)
    /// Stored mail frames per recipient before `mailbox-full`.
    public var mailboxMaxFrames = 1_000
    /// Stored sealed bytes per recipient before `mailbox-full`.
    public var mailboxMaxBytes = 64 * 1024 * 1024
    /// Largest relay frame accepted (header + body); at most the protocol's `Limits.maxFrame`.
    public var maxFrameSize = Limits.maxFrame
    /// Per device key: frames per second (token bucket refill); beyond it: `error rate-limited`.
    /// A Homebase streaming an answer sends about 50 chunk frames/s (20 ms batching), so the
    /// default leaves room for 40 answers at once; at 500 a 16-slot engine got its link closed.
    public var rate = 2_000.0
    /// Per device key: frames that may arrive at once (token bucket size).
    public var burst = 4_000.0
    /// Data frames held per connection for a slow receiver; beyond it live frames are dropped.
    public var sendQueueFrames = 256
    /// Data bytes held per connection for a slow receiver; beyond it live frames are dropped.
    public var sendQueueBytes = 4 * 1024 * 1024
    /// Bytes handed to the socket layer per connection before the relay's own queue holds the rest.
    public var socketBufferBytes = 256 * 1024
    /// Queued output that makes no progress for this long closes the connection.
    public var writeTimeout: Duration = .seconds(30)
    /// TLS handshake plus HTTP upgrade request must arrive within this (slowloris cut-off).
    public var headerTimeout: Duration = .seconds(10)
    /// `auth` must arrive within this after the challenge.
    public var handshakeTimeout: Duration = .seconds(10)
    /// The relay pings each device this often (keeps proxies and NATs open).
    public var pingInterval: Duration = .seconds(30)
    /// A device that sends nothing (pongs included) for this long is closed with `idle-timeout`
    /// (each connection's own deadline, exact to the loop's timer).
    public var idleTimeout: Duration = .seconds(90)
    /// A live frame for a device not heard from for this long makes the relay ping it, at once
    /// or once it has been quiet that long (0: never). 500 ms: with `probeTimeout` a silent
    /// device is known within 1.25 s of a frame for it, inside the guest's 1.5 s goal, while a
    /// device a frame is streamed to costs at most two pings a second.
    public var probeAfter: Duration = .milliseconds(500)
    /// No pong (nor any frame) within this after a probe: the device is closed as silent, the
    /// frames forwarded to it since are answered `not-here`, its correspondents hear `peer-gone`.
    /// 750 ms: above a slow mobile round trip, well under the guest's 1.5 s goal.
    public var probeTimeout: Duration = .milliseconds(750)
    /// `peer-gone` goes to the devices that exchanged a live frame with the leaver within this.
    public var peerGoneWindow: Duration = .seconds(60)
    /// Correspondents remembered per connection for `peer-gone` (~48 bytes each); beyond it the
    /// one heard from longest ago is forgotten. 0: no `peer-gone`.
    public var peerGoneMemory = 64
    /// TCP_USER_TIMEOUT on device sockets: data the peer has not acknowledged for this long
    /// fails the connection (0: the kernel's default, about 15 minutes of retransmissions).
    /// 10 s: several retransmissions on a lossy path, yet a dead peer is found in seconds.
    public var tcpUserTimeout: Duration = .seconds(10)
    /// Open connections at most; more are accepted and closed at once.
    public var maxConnections = 10_000
    /// Accepts per event-loop turn (fairness to open connections).
    public var acceptBurst = 64
    /// Accepts per second (token bucket against connection floods).
    public var acceptRate = 2_000
    /// How often expired mail is deleted.
    public var sweepInterval: Duration = .seconds(60)
    /// `restarting` tells devices to reconnect after this long (they add jitter).
    public var restartDelay: Duration = .seconds(2)
    /// How long a closing connection waits for the peer's close frame.
    public var closeTimeout: Duration = .seconds(2)
    /// Abuse limits of a public relay: per-address connections, quotas, metrics (RelayLimits.swift).
    public var limits = RelayLimits()
    /// The relay as a cluster through NATS (ClusterConfig.swift); off by default.
    public var cluster = ClusterConfig()
    /// SQLite `synchronous`: `normal` survives a crash of the relay, `full` also a power loss
    /// (an fsync per stored mail frame, on the event loop: slower mail, live frames wait).
    public var durability = Durability.normal
    /// error | warn | info | debug.
    public var logLevel = LogLevel.info

    public init() {}

    /// How devices may be admitted.
    public enum AdmissionMode: String, Sendable, CaseIterable {
        case open, allowlist, token
    }

    /// How hard a stored mail frame is pushed to disk before `stored` is answered.
    public enum Durability: String, Sendable, CaseIterable {
        case normal, full
    }

    /// The origin announced in `challenge` and checked in every signature.
    public var effectiveOrigin: String {
        if let origin { return origin }
        let scheme = tlsCert == nil ? "ws" : "wss"
        let host = listenHost.contains(":") ? "[\(listenHost)]" : listenHost
        return "\(scheme)://\(host):\(listenPort)"
    }

    /// `$XDG_DATA_HOME/homebase-relay`, else `$HOME/.local/share/homebase-relay`, else `./homebase-relay-data`.
    public static func defaultDataDir() -> String {
        if let x = getenv("XDG_DATA_HOME"), x.pointee != 0 { return String(cString: x) + "/homebase-relay" }
        if let h = getenv("HOME"), h.pointee != 0 { return String(cString: h) + "/.local/share/homebase-relay" }
        return "./homebase-relay-data"
    }

    /// Checks settings that depend on each other; called by the loader and by `Relay`.
    public func validate() throws(RelayError) {
        if (tlsCert == nil) != (tlsKey == nil) {
            throw .inconsistent("tls-cert and tls-key go together: set both (TLS on the relay) or neither (plain, behind a proxy)")
        }
        if admission == .allowlist && allowlistFile == nil && allowAccounts.isEmpty {
            throw .inconsistent("admission = allowlist needs allow-accounts (hex account keys) or allowlist-file (hex keys, one per line)")
        }
        if admission == .token && tokenFile == nil {
            throw .inconsistent("admission = token needs token-file: a file of admission tokens, one per line")
        }
        if effectiveOrigin.utf8.count > Limits.maxOrigin {
            throw .inconsistent("origin is longer than \(Limits.maxOrigin) bytes")
        }
        if maxFrameSize < RelayFrame.headerSize + 128 || maxFrameSize > Limits.maxFrame {
            throw .inconsistent("max-frame-size must be between \(RelayFrame.headerSize + 128) and \(Limits.maxFrame)")
        }
        if probeAfter > .zero && probeTimeout <= .zero {
            throw .inconsistent("probe-timeout must be above 0 (or turn probes off with probe-after = 0ms)")
        }
        if mailTTL > maxTTL { throw .inconsistent("mail-ttl (the default TTL) must not exceed max-ttl") }
        try limits.validate()
        try cluster.validate()
        if limits.proxyProtocol == .v1 && tlsCert != nil {
            throw .inconsistent("proxy-protocol = v1 needs a plain listener (the PROXY line comes before TLS): let the proxy terminate TLS")
        }
    }
}
