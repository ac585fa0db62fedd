// The settings of RelayLimits: per-address limits, mailbox quotas, traffic and metrics.

extension Settings {
    static var limits: [Setting] { [
        countSetting("ip-max-connections", "open connections per client address", \.limits.ipMaxConnections),
        countSetting("ip-max-pending", "unauthenticated connections per client address", \.limits.ipMaxPending),
        rateSetting("ip-accept-rate", "new connections per second per client address", \.limits.ipAcceptRate),
        rateSetting("ip-accept-burst", "new connections at once per client address", \.limits.ipAcceptBurst),
        countSetting("max-pending", "unauthenticated connections in all; at it the oldest is closed", \.limits.maxPending),
        durationSetting("pressure-header-timeout", "header-timeout once half of max-pending is used", \.limits.pressureHeaderTimeout),
        durationSetting("pressure-handshake-timeout", "handshake-timeout once half of max-pending is used", \.limits.pressureHandshakeTimeout),
        rateSetting("auth-failure-rate", "failed auths per second per address before rate-limited", \.limits.authFailureRate),
        rateSetting("auth-failure-burst", "failed auths at once per address before rate-limited", \.limits.authFailureBurst),
        countSetting("account-max-connections", "authenticated connections per account (its devices and token guests)",
                     \.limits.accountMaxConnections),
        Setting(key: "trusted-proxies", help: "proxy addresses whose PROXY line or X-Forwarded-For names the client",
                form: "comma-separated IP addresses, e.g. 127.0.0.1,10.0.0.2",
                apply: { c, s in
                    let a = s.split(separator: ",").map { String($0.trimmed) }
                    guard !a.isEmpty, a.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { return false }
                    c.limits.trustedProxies = a; return true
                },
                show: { $0.limits.trustedProxies.isEmpty ? "(none)" : $0.limits.trustedProxies.joined(separator: ",") }),
        choiceSetting("proxy-protocol", "v1: trusted proxies send a PROXY v1 line (else X-Forwarded-For)", \RelayConfig.limits.proxyProtocol),
        countSetting("mailbox-sender-frames", "stored mail frames per recipient from one sender", \.limits.mailboxSenderFrames),
        sizeSetting("mailbox-sender-bytes", "stored mail bytes per recipient from one sender", \.limits.mailboxSenderBytes),
        countSetting("mailbox-own-reserve-frames", "mail frames per recipient kept for its own account's devices", \.limits.mailboxOwnReserveFrames),
        sizeSetting("mailbox-own-reserve-bytes", "mail bytes per recipient kept for its own account's devices", \.limits.mailboxOwnReserveBytes),
        countSetting("sender-mail-frames", "stored mail frames per sender key, all recipients", \.limits.senderMailFrames),
        sizeSetting("sender-mail-bytes", "stored mail bytes per sender key, all recipients", \.limits.senderMailBytes),
        countSetting("ip-mail-frames", "stored mail frames per source address", \.limits.ipMailFrames),
        sizeSetting("ip-mail-bytes", "stored mail bytes per source address", \.limits.ipMailBytes),
        sizeSetting("mail-disk-budget", "stored mail bytes in all; beyond it mail is refused, live flows", \.limits.mailDiskBudget),
        Setting(key: "unseen-recipient-ttl", help: "TTL of mail to a key never authenticated here (0ms refuses it)",
                form: ValueParsing.durationForm,
                apply: { c, s in guard let d = ValueParsing.duration(s) else { return false }; c.limits.unseenRecipientTTL = d; return true },
                show: { $0.limits.unseenRecipientTTL.settingText }),
        durationSetting("message-timeout", "a WebSocket message begun must be complete within this", \.limits.messageTimeout),
        Setting(key: "metrics-listen", help: "loopback address:port of /metrics, or off",
                form: "127.0.0.1:PORT, [::1]:PORT or off",
                apply: { c, s in
                    if s == "off" { c.limits.metricsHost = nil; return true }
                    guard let (h, p) = ValueParsing.listen(s) else { return false }
                    c.limits.metricsHost = h; c.limits.metricsPort = p; return true
                },
                show: { c in c.limits.metricsHost.map { ($0.contains(":") ? "[\($0)]" : $0) + ":\(c.limits.metricsPort)" } ?? "off" }),
    ] }
}
