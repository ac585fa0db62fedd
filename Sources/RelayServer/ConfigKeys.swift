// The table of settings: one entry per key. A key is the flag name without "--", the config-file
// key, and (upper snake case, prefixed HOMEBASE_RELAY_) the environment variable.

import CommandLineKit

/// One setting: its key, what it does, how to parse it, and how to show its current value (the
/// command-line kit's key type, over the relay's config).
typealias Setting = ConfigKey<RelayConfig>

func durationSetting(_ key: String, _ help: String, _ path: WritableKeyPath<RelayConfig, Duration>) -> Setting {
    Setting(key: key, help: help, form: ValueParsing.durationForm,
            apply: { c, s in guard let d = ValueParsing.duration(s) else { return false }; c[keyPath: path] = d; return true },
            show: { $0[keyPath: path].settingText })
}

func sizeSetting(_ key: String, _ help: String, _ path: WritableKeyPath<RelayConfig, Int>) -> Setting {
    Setting(key: key, help: help, form: ValueParsing.sizeForm,
            apply: { c, s in guard let n = ValueParsing.size(s), n > 0 else { return false }; c[keyPath: path] = n; return true },
            show: { SizeGrammar.text(Int64($0[keyPath: path])) })
}

func countSetting(_ key: String, _ help: String, _ path: WritableKeyPath<RelayConfig, Int>) -> Setting {
    Setting(key: key, help: help, form: "a whole number of at least 1",
            apply: { c, s in guard let n = ValueParsing.count(s) else { return false }; c[keyPath: path] = n; return true },
            show: { "\($0[keyPath: path])" })
}

func rateSetting(_ key: String, _ help: String, _ path: WritableKeyPath<RelayConfig, Double>) -> Setting {
    Setting(key: key, help: help, form: "a positive number",
            apply: { c, s in guard let d = ValueParsing.rate(s) else { return false }; c[keyPath: path] = d; return true },
            show: { c in let v = c[keyPath: path]; return v == v.rounded() ? "\(Int(v))" : "\(v)" })
}

func pathSetting(_ key: String, _ help: String, _ path: WritableKeyPath<RelayConfig, String?>) -> Setting {
    Setting(key: key, help: help, form: "a file path",
            apply: { c, s in guard !s.isEmpty else { return false }; c[keyPath: path] = s; return true },
            show: { $0[keyPath: path] ?? "(none)" })
}

func choiceSetting<E: RawRepresentable & CaseIterable>(
    _ key: String, _ help: String, _ path: WritableKeyPath<RelayConfig, E>
) -> Setting where E.RawValue == String {
    Setting(key: key, help: help, form: "one of " + E.allCases.map(\.rawValue).joined(separator: ", "),
            apply: { c, s in guard let v = E(rawValue: s) else { return false }; c[keyPath: path] = v; return true },
            show: { $0[keyPath: path].rawValue })
}

enum Settings {
    // Computed: a table of closures is not Sendable, and it is read only at start.
    static var all: [Setting] { [
        Setting(key: "listen", help: "address:port to listen on", form: "host:port, e.g. 0.0.0.0:443 or [::]:8080",
                apply: { c, s in guard let (h, p) = ValueParsing.listen(s) else { return false }
                         c.listenHost = h; c.listenPort = p; return true },
                show: { c in c.listenHost.contains(":") ? "[\(c.listenHost)]:\(c.listenPort)" : "\(c.listenHost):\(c.listenPort)" }),
        Setting(key: "data-dir", help: "directory of the mailbox database", form: "a directory path",
                apply: { c, s in guard !s.isEmpty else { return false }; c.dataDir = s; return true }, show: { $0.dataDir }),
        pathSetting("tls-cert", "PEM certificate chain (TLS on the relay; omit behind a proxy)", \.tlsCert),
        pathSetting("tls-key", "PEM private key of tls-cert", \.tlsKey),
        choiceSetting("tls-record-layer", "who protects TLS 1.3 records after the handshake: own (the relay's record layer, "
                      + "OpenSSL's per-connection state freed: ~10 KiB less per idle connection) or openssl (OpenSSL throughout); "
                      + "TLS 1.2 clients always stay on OpenSSL", \RelayConfig.tlsRecordLayer),
        Setting(key: "origin", help: "origin devices dial and sign over (default from listen + TLS)",
                form: "ws://host:port or wss://host[:port]",
                apply: { c, s in guard s.hasPrefix("ws://") || s.hasPrefix("wss://") else { return false }; c.origin = s; return true },
                show: { $0.effectiveOrigin }),
        choiceSetting("admission", "who may authenticate", \RelayConfig.admission),
        pathSetting("allowlist-file", "hex device or account keys, one per line (re-read on SIGHUP)", \.allowlistFile),
        pathSetting("token-file", "admission tokens, one per line (re-read on SIGHUP)", \.tokenFile),
        // Admission by account (helper "admission").
        Setting(key: "allow-accounts", help: "account keys (hex, comma-separated) whose devices, invites and pairing codes are admitted",
                form: "64 hex digits per key, separated by commas",
                apply: { c, s in guard let keys = ValueParsing.keys(s) else { return false }; c.allowAccounts = keys; return true },
                show: { c in c.allowAccounts.isEmpty ? "(none)" : c.allowAccounts.map(\.hex).joined(separator: ",") }),
        durationSetting("proof-max-lifetime", "longest device-proof validity accepted; revocations are kept as long", \.proofMaxLifetime),
        countSetting("max-tokens-per-account", "admission tokens an account may register at once", \.maxTokensPerAccount),
        durationSetting("mail-ttl", "TTL of mail sent with ttl 0", \.mailTTL),
        durationSetting("max-ttl", "longest mail TTL honoured", \.maxTTL),
        countSetting("mailbox-max-frames", "stored mail frames per recipient", \.mailboxMaxFrames),
        sizeSetting("mailbox-max-bytes", "stored mail bytes per recipient", \.mailboxMaxBytes),
        sizeSetting("max-frame-size", "largest relay frame accepted (header + body)", \.maxFrameSize),
        rateSetting("rate", "frames per second per device key", \.rate),
        rateSetting("burst", "frames at once per device key", \.burst),
        countSetting("send-queue-frames", "data frames held per slow receiver before drops", \.sendQueueFrames),
        sizeSetting("send-queue-bytes", "data bytes held per slow receiver before drops", \.sendQueueBytes),
        sizeSetting("socket-buffer", "bytes handed to the socket per connection before queueing", \.socketBufferBytes),
        durationSetting("write-timeout", "close a connection whose output makes no progress", \.writeTimeout),
        durationSetting("header-timeout", "TLS handshake + upgrade request deadline", \.headerTimeout),
        durationSetting("handshake-timeout", "auth deadline after the challenge", \.handshakeTimeout),
        durationSetting("ping-interval", "how often the relay pings each device", \.pingInterval),
        durationSetting("idle-timeout", "close a device silent for this long", \.idleTimeout),
        durationSetting("probe-after", "ping a device quiet this long when a live frame comes for it (0ms: never)", \.probeAfter),
        durationSetting("probe-timeout", "close a probed device that does not answer within this", \.probeTimeout),
        durationSetting("peer-gone-window", "tell devices that exchanged live frames with a leaver within this", \.peerGoneWindow),
        Setting(key: "peer-gone-memory", help: "correspondents remembered per connection for peer-gone (0: none)",
                form: "a whole number", apply: { c, s in guard let n = ValueParsing.count(s, min: 0) else { return false }
                    c.peerGoneMemory = n; return true }, show: { "\($0.peerGoneMemory)" }),
        durationSetting("tcp-user-timeout", "fail a socket whose sent data is unacknowledged this long (0ms: kernel default)", \.tcpUserTimeout),
        countSetting("max-connections", "open connections at most; the open-file limit is raised to match at start (logged when it "
                     + "cannot be). An idle TLS 1.3 connection costs about 3.3 KiB of relay memory with tls-record-layer own (17 KiB with "
                     + "openssl), a plain one 3.6 KiB, plus kernel socket memory: the default 10,000 fits a 512 MB node with room to "
                     + "spare; 100,000 TLS need about 0.35 GB of relay memory (1.7 GB on OpenSSL's record layer; docs/BENCHMARKS.md)",
                     \.maxConnections),
        countSetting("accept-burst", "accepts per event-loop turn", \.acceptBurst),
        countSetting("accept-rate", "accepts per second", \.acceptRate),
        durationSetting("sweep-interval", "how often expired mail is deleted", \.sweepInterval),
        durationSetting("restart-delay", "reconnect delay announced on SIGTERM", \.restartDelay),
        durationSetting("close-timeout", "wait for the peer's close frame", \.closeTimeout),
        choiceSetting("durability", "normal: survives a relay crash; full: also power loss (fsync per mail)", \RelayConfig.durability),
        Setting(key: "log-level", help: "error, warn, info or debug", form: "one of error, warn, info, debug",
                apply: { c, s in guard let l = LogLevel(name: s) else { return false }; c.logLevel = l; return true },
                show: { $0.logLevel.name }),
    ] + limits + cluster }

    static func named(_ key: String) -> Setting? { all.first { $0.key == key } }

    /// The table the loader applies: environment variables are `HOMEBASE_RELAY_<KEY>`.
    static var table: KeyTable<RelayConfig> { KeyTable(all, environmentPrefix: ConfigLoader.environmentPrefix) }
}
