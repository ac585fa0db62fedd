// bench-e2e's flags: every count and every limit, so a quick run takes seconds.
import Foundation

struct Options {
    /// Paired latency runs (direct and through the relay, alternating which goes first).
    var runs = 20
    /// max_tokens of the latency runs.
    var tokens = 256
    /// Runs of each fault.
    var faultRuns = 5
    /// Runs of the cold row (a guest just started, its on-device engine not running): each
    /// starts the engine from nothing, so it has its own count.
    var coldRuns = 3
    /// The guest's accept rung for the frozen case, and its stall rung for the stall case.
    var acceptMs = 500
    var stallMs = 500
    /// The own-advert window for the stale case (the product's is 10 min).
    var advertWindowMs = 1000
    /// Concurrent streams through one relay, and the guest devices they come from.
    var streams = 1000
    var devices: Int?
    /// llama-server slots (= the Homebase's max-concurrent); each slot gets `slotContext` tokens.
    var slots = 16
    /// max_tokens of each crowd stream.
    var crowdTokens = 16
    /// The crowd's accept and first-output rungs: how long a queued stream may wait its turn.
    var crowdWaitS = 300
    /// `homebase-relay --rate/--burst` (frames per second per device key); nil: its defaults.
    var relayRate: Int?
    /// Paired runs of each payloads row (tool round trip, 5 MB image).
    var payloadRuns = 10
    /// Issue 18's rows (DoneWhen.swift): runs of the engine stall (each about 20 s: the
    /// Homebase's default engine idle limit), and the relay's outage and its runs.
    var engineStallRuns = 3
    var relayOutageS = 5
    var relayRuns = 3
    var sections: Set<String> = ["latency", "faults", "crowd", "payloads"]
    static let allSections: Set<String> = ["latency", "faults", "crowd", "payloads", "cold"]

    static let usage = """
        usage: bench-e2e [--runs N] [--tokens N] [--fault-runs N] [--cold-runs N] [--accept-ms MS] [--stall-ms MS]
                         [--advert-window-ms MS] [--streams N] [--devices N] [--slots N]
                         [--crowd-tokens N] [--crowd-wait-s S] [--relay-rate N] [--payload-runs N]
                         [--engine-stall-runs N] [--relay-outage-s S] [--relay-runs N]
                         [--only latency,faults,crowd,payloads,cold]

        Starts a real relay (homebase-relay), llama-server on the tiny model, and a Homebase
        (homebase run) on loopback; drives a guest in-process through its own libraries (as
        `guest chat` does) and prints markdown tables:
          latency  time to first token and tokens/s, guest -> relay -> Homebase -> llama-server
                   beside a client talking to the same llama-server directly (--runs, --tokens)
          faults   time to the first fallback token: Homebase frozen (accept rung --accept-ms),
                   stalled mid-stream (--stall-ms), gone (not-here), advert stale (--advert-window-ms);
                   then issue 18's rows with default settings: the next question after a Homebase
                   went silent (cooldown), an engine stall behind the Homebase (--engine-stall-runs,
                   about 20 s each), the guest's own link black-holed mid-answer, and the relay
                   killed and started again after --relay-outage-s (5; the issue's case is 30)
                   The cold row (Homebase gone, the guest just started, no on-device engine
                   running: each run starts it from nothing) has --cold-runs (3) runs.
          cold     the cold row alone (--cold-runs), for repeated runs of it
          crowd    --streams concurrent streams from --devices guest devices (default: one each)
                   through one relay: completed, time to first token, relay RSS; a queued
                   stream waits up to --crowd-wait-s (300) for accept and first output
          payloads a tool round trip (call, result, answer) and a 5 MB image's time to first token,
                   direct beside relayed (--payload-runs); the image goes to a labelled capture
                   peer in front of llama-server (the tiny model cannot see)

        Binaries: .build/release (HOMEBASE_BIN_DIR) and ~/.cache/homebase/engine (HOMEBASE_ENGINE_DIR);
        `make bench-e2e` builds them. Flags through make: BENCH_E2E_FLAGS="--runs 5".
        """

    init(_ args: [String]) throws {
        var i = 0
        func int(_ name: String) throws -> Int {
            i += 1
            guard i < args.count, let n = Int(args[i]), n >= 0 else { throw UsageError("\(name) takes a whole number") }
            return n
        }
        while i < args.count {
            switch args[i] {
            case "--help", "-h": throw UsageError(nil)
            case "--runs": runs = max(1, try int("--runs"))
            case "--tokens": tokens = max(1, try int("--tokens"))
            case "--fault-runs": faultRuns = max(1, try int("--fault-runs"))
            case "--cold-runs": coldRuns = max(1, try int("--cold-runs"))
            case "--accept-ms": acceptMs = try int("--accept-ms")
            case "--stall-ms": stallMs = try int("--stall-ms")
            case "--advert-window-ms": advertWindowMs = max(1, try int("--advert-window-ms"))
            case "--streams": streams = max(1, try int("--streams"))
            case "--devices": devices = max(1, try int("--devices"))
            case "--slots": slots = max(1, try int("--slots"))
            case "--crowd-tokens": crowdTokens = max(1, try int("--crowd-tokens"))
            case "--crowd-wait-s": crowdWaitS = max(1, try int("--crowd-wait-s"))
            case "--relay-rate": relayRate = max(1, try int("--relay-rate"))
            case "--payload-runs": payloadRuns = max(1, try int("--payload-runs"))
            case "--engine-stall-runs": engineStallRuns = max(1, try int("--engine-stall-runs"))
            case "--relay-outage-s": relayOutageS = try int("--relay-outage-s")
            case "--relay-runs": relayRuns = max(1, try int("--relay-runs"))
            case "--only":
                i += 1
                guard i < args.count else { throw UsageError("--only takes a list: latency,faults,crowd,payloads,cold") }
                sections = Set(args[i].split(separator: ",").map(String.init))
                guard sections.isSubset(of: Self.allSections), !sections.isEmpty else {
                    throw UsageError("--only takes latency, faults, crowd, payloads and/or cold, comma-separated")
                }
            default: throw UsageError("unknown flag \(args[i])")
            }
            i += 1
        }
        if tokens + 64 > 512 { throw UsageError("--tokens at most 448 (each engine slot holds 512 tokens)") }
    }

    /// Tokens of context per engine slot: 512, or 1024 with payloads (the tool turn's template
    /// alone is about 600 tokens).
    var slotContext: Int { sections.contains("payloads") ? 1024 : 512 }

    var crowdDevices: Int { min(devices ?? streams, streams) }
}

struct UsageError: Error {
    let message: String?
    init(_ m: String?) { message = m }
}
