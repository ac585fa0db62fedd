import CommandLineKit
import Basics
import Foundation
import HomebaseAgent
import PeerLink

/// The settings of `homebase run`: defaults < config file < environment < flags (SettingKeys.swift). The config file holds
/// `key = value` lines (`#` comments); its keys are the flags' names.
struct Settings {
    /// Every key of the config file, each also a flag of `run`.
    static let keys: Set<String> = [
        "relay", "relay-alternates", "pin", "ca-file", "advert-pulse", "advert-ttl", "reverify-interval", "reload-interval",
        "max-concurrent", "queue-length", "queue-wait", "max-per-grantee", "batch-delay", "batch-bytes", "replica-size",
        "cache-size", "default-runtime", "engine-idle-timeout", "mail-retry", "mail-retry-max", "keep-alive",
        "logind-bus", "sleep-goodbye", "sleep-watch", "runtime-limit", "audit-grants", "audit-own", "audit-max-bytes",
        "reply-shaping", "cadence-interval", "cadence-min-duration", "shaping-boundary", "models-dir", "hub-url",
    ]

    var values: [String: String] = [:]

    /// The config file's values. A missing file, named by `--config` or not, is no settings yet
    /// for every command (`pair CODE` writes it; `run --relay URL` needs none); one that exists
    /// but cannot be read is an error. `explicit` only words the error.
    static func load(path: String, explicit: Bool) throws(HomebaseError) -> Settings {
        let lines: [Assignment]
        do {
            guard let read = try ConfigLayers.readFile(path) else { return Settings() }
            lines = read
        } catch {
            throw .invalidSetting(key: "config", reason: "\(error)\(explicit ? " (named by --config)" : "")")
        }
        var s = Settings()
        for line in lines {
            guard keys.contains(line.key) else {
                throw .invalidSetting(key: "config", reason: "\(path):\(line.line ?? 0): unknown key \(line.key)")
            }
            s.values[line.key] = line.value
        }
        return s
    }

    /// The cluster's other nodes a code or an invite names beside `relay` (docs/CLUSTER.md
    /// "Devices"): `--relay-alternates` when given, else the config's when `relay` is its relay
    /// (the config's alternates belong to the config's relay, not to one named by `--relay`).
    /// Each checked as `run` checks them (one scheme for the whole cluster).
    func alternates(flag: String?, relay: String) throws(UsageError) -> [String] {
        guard let text = flag ?? (values["relay"] == relay ? values["relay-alternates"] : nil) else { return [] }
        let urls = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        do {
            var link = try PeerLink.Configuration(relayURL: relay)
            try link.addAlternates(urls)
            return link.alternates.map(\.description)
        } catch {
            throw UsageError.invalid("--relay-alternates \(text): \(error) (other nodes of the relay's cluster: URL,URL)")
        }
    }

    /// The agent configuration these settings describe.
    func configuration() throws(HomebaseError) -> HomebaseAgent.Configuration {
        guard let relay = values["relay"] else { throw .noRelay }
        var c = try HomebaseAgent.Configuration(relayURL: relay)
        if let more = values["relay-alternates"] {
            let urls = more.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            do { try c.link.addAlternates(urls) } catch {
                throw .invalidSetting(key: "relay-alternates", reason: "\(error) (other nodes of the relay's cluster: URL,URL)")
            }
        }
        do {
            if let pin = values["pin"] { c.link.trust = try PeerLink.Trust.pinned(hex: pin) }
        } catch {
            throw .invalidSetting(key: "pin", reason: "64 hex digits (the SHA-256 of the relay's certificate)")
        }
        if let ca = values["ca-file"] { c.link.trust = .caFile(ca) }
        try duration("advert-pulse") { c.advertPulse = $0 }
        try duration("advert-ttl") { c.advertTTL = $0 }
        try duration("reverify-interval") { c.reverifyInterval = $0 }
        try duration("reload-interval") { c.reloadInterval = $0 }
        try duration("queue-wait") { c.queueWait = $0 }
        try duration("batch-delay") { c.batchDelay = $0 }
        try duration("engine-idle-timeout") { c.engineTimeouts.idle = $0 }
        try duration("mail-retry") { c.mailRetry.initial = $0 }
        try duration("mail-retry-max") { c.mailRetry.maximum = $0 }
        if c.mailRetry.maximum < c.mailRetry.initial {
            throw .invalidSetting(key: "mail-retry-max", reason: "must be at least mail-retry (\(c.mailRetry.initial))")
        }
        try duration("keep-alive") { c.keepAliveInterval = $0 }
        try duration("cadence-interval") { c.cadenceInterval = $0 }
        try duration("cadence-min-duration") { c.cadenceMinDuration = $0 }
        try duration("shaping-boundary") { c.shapingBoundary = $0 }
        if let v = values["reply-shaping"] {
            guard let level = ReplyShaping(rawValue: v) else {
                throw .invalidSetting(key: "reply-shaping", reason: "\(v) is not off, padded or cadence")
            }
            c.replyShaping = level
        }
        try int("max-concurrent", min: 1) { c.maxConcurrent = $0 }
        try int("queue-length", min: 0) { c.queueLength = $0 }
        try int("max-per-grantee", min: 1) { c.maxPerGrantee = $0 }
        try int("batch-bytes", min: 1) { c.batchBytes = $0 }
        try int("replica-size", min: 1) { c.replicaCapacity = $0 }
        try int("cache-size", min: 1) { c.cacheCapacity = $0 }
        if let url = values["default-runtime"] { c.defaultRuntimeURL = url }
        if let dir = values["models-dir"] { c.modelsFolder = dir }
        if let hub = values["hub-url"] {
            guard hub.hasPrefix("http://") || hub.hasPrefix("https://") else {
                throw .invalidSetting(key: "hub-url", reason: "\(hub) is not an http:// or https:// URL")
            }
            c.hubURL = hub
        }
        if let bus = values["logind-bus"] { c.sleep.busAddress = bus }
        try duration("sleep-goodbye") { c.sleep.goodbyeBudget = $0 }
        try onOff("sleep-watch") { c.sleep.enabled = $0 }
        try onOff("audit-grants") { c.audit.grants = $0 }
        try onOff("audit-own") { c.audit.own = $0 }
        if let v = values["audit-max-bytes"] {
            guard let n = SizeGrammar.parse(v), n >= 1024, n <= Int64(Int.max) else {
                throw .invalidSetting(key: "audit-max-bytes", reason: "\(v) is not a size of at least 1024 bytes (e.g. 10m, 500k, 16MiB)")
            }
            c.audit.maxBytes = Int(n)
        }
        if let v = values["runtime-limit"] {
            guard let l = RuntimeLimits.parse(v) else {
                throw .invalidSetting(key: "runtime-limit", reason: "\(v) is not N or URL=N[,URL=N] (requests at one runtime at once; 0: no limit)")
            }
            c.runtimeLimits = l
        }
        return c
    }

    private func duration(_ key: String, _ set: (Duration) -> Void) throws(HomebaseError) {
        guard let v = values[key] else { return }
        guard let d = Self.parseDuration(v) else {
            throw .invalidSetting(key: key, reason: "\(v) is not a duration (e.g. 250ms, 30s, 5m, 1h)")
        }
        set(d)
    }

    private func onOff(_ key: String, _ set: (Bool) -> Void) throws(HomebaseError) {
        guard let w = values[key] else { return }
        guard w == "on" || w == "off" else { throw .invalidSetting(key: key, reason: "\(w) is not on or off") }
        set(w == "on")
    }

    private func int(_ key: String, min: Int, _ set: (Int) -> Void) throws(HomebaseError) {
        guard let v = values[key] else { return }
        guard let n = Int(v), n >= min else { throw .invalidSetting(key: key, reason: "\(v) is not a whole number >= \(min)") }
        set(n)
    }

    /// `250ms`, `30s`, `5m`, `1h`, `7d` (the kit's `DurationGrammar`); a bare number is seconds.
    static func parseDuration(_ text: String) -> Duration? { DurationGrammar.parse(text, bare: .seconds) }

    /// Appends `key = value` lines to the config file (created, with its directory, if missing).
    static func append(_ lines: [String], to path: String) throws(HomebaseError) {
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
            text += lines.joined(separator: "\n") + "\n"
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw .invalidSetting(key: "config", reason: "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// `$XDG_CONFIG_HOME/homebase/homebase.conf`, or `~/.config/homebase/homebase.conf`.
    static func defaultPath(environment: [String: String]) -> String {
        XDGBase.configHome(environment: environment) + "/homebase/homebase.conf"
    }
}
