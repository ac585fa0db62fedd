import CommandLineKit
import HomebaseAgent

// The table of `homebase run`'s settings: one entry per key of `Settings.keys`, with what it does
// and its default (read from a default `Configuration`, so the help cannot drift from the code).
// A key is the config file's key, the flag `--KEY`, and the environment variable
// `HOMEBASE_HOST_<KEY>` (upper snake case). Layers: defaults < config file < environment < flags.

extension Settings {
    static let environmentPrefix = "HOMEBASE_HOST_"

    private typealias C = HomebaseAgent.Configuration
    private static func d(_ v: Duration) -> String { DurationGrammar.text(v) }

    /// key → (help, the default's text).
    private static let described: [String: (help: String, show: @Sendable (C) -> String)] = [
        "relay": ("the relay's URL, ws:// or wss:// (required)", { _ in "(none)" }),
        "relay-alternates": ("other nodes of the relay's cluster, URL,URL: dialled in turn after relay", { _ in "(none)" }),
        "pin": ("the relay certificate's SHA-256 (64 hex digits), for a self-signed relay", { _ in "(system roots)" }),
        "ca-file": ("PEM file of the CA the relay's certificate chains to", { _ in "(system roots)" }),
        "advert-pulse": ("adverts to siblings this often (and at once on a change)", { d($0.advertPulse) }),
        "advert-ttl": ("how long an advert may wait in a mailbox", { d($0.advertTTL) }),
        "reverify-interval": ("every stored runtime is probed again this often", { d($0.reverifyInterval) }),
        "reload-interval": ("the store is re-read (CLI changes) and status.json rewritten this often", { d($0.reloadInterval) }),
        "max-concurrent": ("requests at the engine at once", { "\($0.maxConcurrent)" }),
        "queue-length": ("requests waiting for a slot; more are answered busy", { "\($0.queueLength)" }),
        "queue-wait": ("longest a queued request waits for a slot", { d($0.queueWait) }),
        "max-per-grantee": ("requests one grantee may have running or waiting", { "\($0.maxPerGrantee)" }),
        "batch-delay": ("longest answer text waits to be coalesced with the next", { d($0.batchDelay) }),
        "batch-bytes": ("pending answer text sent at once", { "\($0.batchBytes)" }),
        "replica-size": ("own-account conversation replicas held", { "\($0.replicaCapacity)" }),
        "cache-size": ("grantees' conversations cached", { "\($0.cacheCapacity)" }),
        "default-runtime": ("probed at start when no runtime is stored", { $0.defaultRuntimeURL }),
        "engine-idle-timeout": ("an engine silent this long mid-answer is answered as host_error", { d($0.engineTimeouts.idle) }),
        "mail-retry": ("trust mail the relay did not store is sent again after this, doubling", { d($0.mailRetry.initial) }),
        "mail-retry-max": ("the longest wait between those tries", { d($0.mailRetry.maximum) }),
        "keep-alive": ("an empty chunk after this long without a frame of an answer", { d($0.keepAliveInterval) }),
        "logind-bus": ("where logind is ($DBUS_SYSTEM_BUS_ADDRESS, else the system bus)", { $0.sleep.busAddress ?? "(system bus)" }),
        "sleep-goodbye": ("before sleep: the away advert and the link's close within this", { d($0.sleep.goodbyeBudget) }),
        "sleep-watch": ("on or off: hold logind's sleep delay lock", { $0.sleep.enabled ? "on" : "off" }),
        "runtime-limit": ("requests at one runtime at once: N or URL=N[,URL=N] (0: no limit)", { "\($0.runtimeLimits.all)" }),
        "audit-grants": ("on or off: audit lines for grantees' requests", { $0.audit.grants ? "on" : "off" }),
        "audit-own": ("on or off: audit lines for the account's own devices", { $0.audit.own ? "on" : "off" }),
        "audit-max-bytes": ("audit.jsonl is rotated past this size", { SizeGrammar.text(Int64($0.audit.maxBytes)) }),
        "reply-shaping": ("off, padded or cadence: what the relay may learn from replies (docs/SIDE-CHANNEL.md)",
                          { $0.replyShaping.rawValue }),
        "cadence-interval": ("cadence: one constant chunk this often", { d($0.cadenceInterval) }),
        "cadence-min-duration": ("cadence: a stream stays open at least this long, else to a doubling of it", { d($0.cadenceMinDuration) }),
        "shaping-boundary": ("padded: the first chunk leaves on a multiple of this (0ms: none)", { d($0.shapingBoundary) }),
        "models-dir": ("the folder `guest host pull` downloads GGUF files into", { $0.modelsFolder ?? "DATA-DIR/models" }),
        "hub-url": ("where OWNER/REPO/FILE.gguf is fetched from", { $0.hubURL }),
    ]

    /// Every key of `keys` with its help and default; a key without a line here (one just added
    /// to `keys`) still works, with no help (a test asks for the line).
    static var table: KeyTable<Settings> {
        let defaults = try? C(relayURL: "ws://127.0.0.1:1")
        return KeyTable(keys.sorted().map { key in
            let entry = described[key]
            return ConfigKey(key: key, help: entry?.help ?? "", form: "a value (see homebase run --help)",
                             apply: { s, v in s.values[key] = v; return true },
                             show: { s in s.values[key] ?? defaults.flatMap { entry?.show($0) } ?? "(none)" })
        }, environmentPrefix: environmentPrefix)
    }

    /// Keys of `keys` the table has no help for (empty when every key is described).
    static var undescribedKeys: [String] { keys.filter { described[$0] == nil }.sorted() }

    /// Keys described that `keys` does not hold (empty when the two agree).
    static var unknownDescribedKeys: [String] { described.keys.filter { !keys.contains($0) }.sorted() }

    /// `run`'s settings: the config file, then `HOMEBASE_HOST_<KEY>` variables, then the flags.
    static func layered(path: String, explicit: Bool, environment: [String: String],
                        flags: ParsedArguments) throws(HomebaseError) -> Settings {
        var s = try load(path: path, explicit: explicit)
        do {
            try table.apply(ConfigLayers.environment(environment, prefix: environmentPrefix)
                            + ConfigLayers.flags(flags, keys: keys), to: &s)
        } catch {
            throw .invalidSetting(key: "config", reason: error.description)
        }
        return s
    }
}
