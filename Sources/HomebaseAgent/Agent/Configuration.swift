import Courier
import Inference
import PeerLink

extension HomebaseAgent {
    /// Everything tunable about a running Homebase. Every interval is a `Duration`, so tests
    /// run in milliseconds; the defaults are the production ones.
    public struct Configuration: Sendable {
        /// The relay link (URL, trust, keepalive, backoff).
        public var link: PeerLink.Configuration
        /// Sealing, parts and replay settings.
        public var courier = Courier.Configuration()
        /// Adverts to siblings on this pulse (and at once on a change), with the current roster
        /// sealed again under its collapse key. Default 60 s.
        public var advertPulse: Duration = .seconds(60)
        /// How long an advert may wait in a mailbox. An advert over 10 minutes old no longer
        /// routes at the guest, but a newer one replaces it there anyway (collapse key). 1 h.
        public var advertTTL: Duration = .seconds(3600)
        /// How long a roster (and a grant, a revocation) may wait in a mailbox. 7 days, and never
        /// more: `Courier.maxMailTTL`, the receivers' replay window (older mail cannot be opened).
        /// A laptop away longer finds the roster sealed again by the pulse (`advertPulse`).
        public var rosterTTL: Duration = Courier.maxMailTTL
        /// Trust mail (rosters, grants, revocations) answered `mailbox-full` or not sent is tried
        /// again after this backoff (2 s doubling to 5 min), until the relay stores it.
        public var mailRetry = Backoff(initial: .seconds(2), maximum: .seconds(300))
        /// Every stored runtime is probed again this often. Default 5 min.
        public var reverifyInterval: Duration = .seconds(300)
        /// The store is re-read this often to see what CLI commands changed (devices, grants,
        /// runtimes), and `status.json` is rewritten. Default 2 s.
        public var reloadInterval: Duration = .seconds(2)
        /// Requests at the engine at once. Default 4 (llama-server's default slot count).
        public var maxConcurrent = 4
        /// Requests waiting for a slot beyond those; more are answered `busy`. Default 4.
        /// Grantees together get all slots but one and all queue places but one: the rest is the
        /// account's own devices', whose waiters also go first.
        public var queueLength = 4
        /// Requests one grantee may have running or waiting at once; more are `busy`. Default 2.
        public var maxPerGrantee = 2
        /// Longest a queued request waits for a slot before `busy`. Default 2 s: well inside the
        /// guest's 10 s accept watchdog.
        public var queueWait: Duration = .seconds(2)
        /// Longest a piece of answer text waits to be coalesced with the next. Default 20 ms.
        public var batchDelay: Duration = .milliseconds(20)
        /// Pending text that is sent at once. Default 1,019 bytes (one 1 KiB chunk bucket).
        public var batchBytes = 1_019
        /// What the relay may learn from the size and timing of reply chunks (`ReplyShaping`,
        /// docs/SIDE-CHANNEL.md). Default `padded`.
        public var replyShaping: ReplyShaping = .padded
        /// `cadence`: one constant-size chunk this often while a stream is open. Default 50 ms.
        public var cadenceInterval: Duration = .milliseconds(50)
        /// `cadence`: every stream lasts at least this long (then to a doubling of it), so the
        /// stream's length hides how long a short answer was. Default 8 s: the bench's answers
        /// (2-6 s of text, docs/SIDE-CHANNEL.md) all end on it; with 16 ticks as the floor their
        /// length class still told the topic. At least 16 ticks.
        public var cadenceMinDuration: Duration = .seconds(8)
        /// `padded`: the first chunk leaves on a multiple of this since the request. Default zero:
        /// no boundary (it costs up to its length in time to first token; #24 keeps that near 0).
        public var shapingBoundary: Duration = .zero
        /// Engine HTTP limits while serving (connect, first byte, mid-stream silence). The
        /// silence limit (20 s) is below the guest's 30 s stall rung, so an engine stall reaches
        /// the guest as our `host_error`, not as silence it must wait out. The first-byte limit
        /// (80 s) is below the guest's 90 s first-output rung for the same reason: our keep-alives
        /// restart that rung, so without it a hung engine would hold the guest for 120 s.
        public var engineTimeouts = HTTPTimeouts(firstByte: .seconds(80), idle: .seconds(20))
        /// An empty chunk after this long without a frame of an answer (the engine works on a
        /// long prompt, or pauses), so the guest's watchdog sees the host alive. Default 5 s.
        public var keepAliveInterval: Duration = .seconds(5)
        /// Probe limits (management requests, then the one-token trial).
        public var probeTimeouts = HTTPTimeouts(connect: .seconds(3), firstByte: .seconds(10), idle: .seconds(10))
        public var trialTimeouts = HTTPTimeouts(connect: .seconds(3), firstByte: .seconds(120), idle: .seconds(30))
        /// The folder the Homebase owns for llama-server's GGUF files (`guest host pull`); nil:
        /// llama-server runtimes cannot pull or delete. `homebase run --models-dir`.
        public var modelsFolder: String?
        /// The model hub llama-server pulls come from (`--hub-url`; tests use a stand-in).
        public var hubURL = "https://huggingface.co"
        /// HTTP limits of management calls (a pull's stream may pause: idle 60 s).
        public var manageTimeouts = HTTPTimeouts(connect: .seconds(5), firstByte: .seconds(60), idle: .seconds(60))
        /// Probe the stored runtimes once at start (else the first re-verification is one
        /// `reverifyInterval` away). Default true.
        public var verifyOnStart = true
        /// Own-account conversation replicas held (least recently used forgotten). Default 4,096.
        public var replicaCapacity = 4_096
        /// Grantees' conversations cached (least recently used forgotten). Default 256.
        public var cacheCapacity = 256
        /// Probed at start when no runtime is stored (Ollama's default address).
        public var defaultRuntimeURL = "http://127.0.0.1:11434"
        /// One line per event (connection, runtime, request outcome by code); never prompts,
        /// answers or secrets.
        public var log: (@Sendable (String) -> Void)?
        /// Sees every chunk handed to the link: its data length and the nanoseconds since the
        /// oldest text in it arrived from the engine (benchmarks; never the text).
        public var chunkProbe: (@Sendable (_ bytes: Int, _ waitedNs: UInt64) -> Void)?
        /// One `timing:` line per request to `log` (see `TimingTrace`): when each step before
        /// the engine and the first chunk happened. Times only. Default off.
        public var traceTimings = false
        /// How long the account's proofs for its devices at the relay last (SPEC
        /// "Authentication"); the relay refuses one past it. Default 365 days.
        public var proofLifetime: Duration = .seconds(365 * 86_400)

        /// Requests at one runtime at once (#21: several runtimes may serve one model). Default none.
        public var runtimeLimits = RuntimeLimits()
        /// Who the audit log records, and its cap (#21). Default: grantees only, 10 MiB.
        public var audit = AuditSettings()

        /// logind's sleep delay lock: the system bus, the goodbye's budget (2 s). See `SleepWatch`.
        public var sleep = SleepSettings()

        public init(link: PeerLink.Configuration) { self.link = link }

        /// From a relay URL (`ws://` or `wss://`).
        public init(relayURL: String) throws(HomebaseError) {
            do { link = try PeerLink.Configuration(relayURL: relayURL) } catch { throw .link("\(error)") }
        }

        var batchPolicy: ChunkBatcher.Policy {
            .init(maxDelay: batchDelay, maxBytes: max(1, batchBytes), keepAlive: keepAliveInterval,
                  shaping: .init(level: replyShaping, interval: cadenceInterval, boundary: shapingBoundary,
                                 minFrames: replyShaping == .cadence ? cadenceFloorTicks : 16))
        }

        /// `cadence`'s floor in ticks: `cadenceMinDuration` rounded up to a tick, at least 16.
        var cadenceFloorTicks: Int {
            let tick = max(1, cadenceInterval.nanoseconds), floor = max(0, cadenceMinDuration.nanoseconds)
            return Int(max(16, (floor + tick - 1) / tick))
        }

        /// The length a cadence stream ends on at the least (the floor's ticks times the tick).
        var cadenceFloor: Duration { cadenceInterval * cadenceFloorTicks }
    }
}
