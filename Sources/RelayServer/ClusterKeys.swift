// The settings of ClusterConfig (the relay as a cluster). None set: a single-node relay.

extension Settings {
    static var cluster: [Setting] { [
        Setting(key: "cluster-nats", help: "NATS URLs of the cluster, comma-separated, tried in order: this node's own first (sets cluster mode)",
                form: "nats://host:port or tls://host:port, separated by commas",
                apply: { c, s in
                    let urls = s.split(separator: ",").map { String($0.trimmed) }
                    guard !urls.isEmpty, urls.allSatisfy({ $0.hasPrefix("nats://") || $0.hasPrefix("tls://") }) else { return false }
                    c.cluster.natsURLs = urls; return true
                },
                show: { $0.cluster.natsURLs.isEmpty ? "(none: single node)" : $0.cluster.natsURLs.joined(separator: ",") }),
        Setting(key: "cluster-node-name", help: "this node's name, unique in the cluster (letters, digits, - and _)",
                form: "1 to 64 letters, digits, - or _",
                apply: { c, s in guard ClusterConfig.isToken(s) else { return false }; c.cluster.nodeName = s; return true },
                show: { $0.cluster.nodeName ?? "(none)" }),
        Setting(key: "cluster-nats-user", help: "NATS user of the relay nodes' account", form: "a user name",
                apply: { c, s in guard !s.isEmpty else { return false }; c.cluster.natsUser = s; return true },
                show: { $0.cluster.natsUser ?? "(none)" }),
        pathSetting("cluster-nats-password-file", "file holding that user's NATS password", \.cluster.natsPasswordFile),
        pathSetting("cluster-nats-credentials", "NATS .creds file (user JWT and nkey seed), instead of user/password", \.cluster.natsCredentials),
        Setting(key: "cluster-nats-nkey", help: "public nkey (U...) of this node's NATS user", form: "an nkey starting with U",
                apply: { c, s in guard s.hasPrefix("U"), s.count == 56 else { return false }; c.cluster.natsNkey = s; return true },
                show: { $0.cluster.natsNkey ?? "(none)" }),
        pathSetting("cluster-nats-nkey-seed-file", "file holding that nkey's seed (SU...)", \.cluster.natsNkeySeedFile),
        pathSetting("cluster-nats-ca", "PEM CA of the NATS servers (TLS to NATS)", \.cluster.natsCA),
        durationSetting("cluster-nats-timeout", "NATS connect, flush and JetStream call deadline", \.cluster.natsTimeout),
        durationSetting("cluster-nats-ping-interval", "pings to the NATS server", \.cluster.natsPingInterval),
        countSetting("cluster-nats-max-pings-out", "unanswered NATS pings that mark the link dead", \.cluster.natsMaxPingsOut),
        durationSetting("cluster-nats-reconnect-wait", "between NATS reconnect attempts", \.cluster.natsReconnectWait),
        Setting(key: "cluster-mail-stream", help: "JetStream stream of the cluster's mail", form: "letters, digits, - or _",
                apply: { c, s in guard ClusterConfig.isToken(s) else { return false }; c.cluster.mailStream = s; return true },
                show: { $0.cluster.mailStream }),
        countSetting("cluster-replicas", "replicas of the mail stream (3: one NATS node may die)", \.cluster.replicas),
        durationSetting("cluster-publish-timeout", "wait for the stream's ack of a mail frame, then mailbox-full", \.cluster.publishTimeout),
        durationSetting("cluster-ack-wait", "mail handed to a device and not acked within this is delivered again", \.cluster.ackWait),
        durationSetting("cluster-consumer-inactive", "a recipient's unused consumer is deleted after this (its mail stays)", \.cluster.consumerInactive),
        durationSetting("cluster-duplicate-window", "mail frame id dedupe window of the stream", \.cluster.duplicateWindow),
        durationSetting("cluster-join-settle", "wait after a joining device's NATS flush before auth-ok, for its interest to reach the other NATS servers (0: none)",
                        \.cluster.joinSettle),
    ] }
}
