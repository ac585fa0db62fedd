import CommandLineKit
import Foundation
import Glibc
import HomebaseAgent
import Synchronization

/// `homebase run`: the agent until SIGTERM or SIGINT, then a clean stop (active requests are
/// cancelled, which aborts their engine transfers; the link closes; a last status is written).
enum RunCommand {
    /// `homebase run --help`'s text after the flags.
    static let details: String =
        "Settings come from (later wins): defaults, the config file (--config; `key = value` lines, `#`\n"
            + "  comments), the environment (HOMEBASE_HOST_<KEY>, e.g. HOMEBASE_HOST_MAX_CONCURRENT=8), then flags;\n"
            + "  every --KEY flag below is also a config file key. Durations: 250ms, 30s, 10m, 2h, 7d (a bare number\n"
            + "  is seconds); sizes: 4096, 64KiB, 10m.\n"
            + "--relay-alternates URL,URL: other nodes of the relay's cluster (docs/CLUSTER.md), dialled in turn\n"
            + "  after --relay when a connection fails or is lost; same scheme; proofs are made for --relay's origin.\n"
            + "--max-concurrent N (default 4) requests at the engine, --queue-length N (default 4) waiting up to\n"
            + "  --queue-wait (default 2s); grantees together get all slots but one and all queue places but one\n"
            + "  (the account's own devices keep the rest and are served first); --max-per-grantee N (default 2)\n"
            + "  requests one grantee may have running or waiting. More are answered `busy`.\n"
            + "--mail-retry DURATION (default 2s), --mail-retry-max DURATION (default 5m): rosters, grants and\n"
            + "  revocations the relay did not store (mailbox full) are sent again after this backoff, doubling.\n"
            + "--engine-idle-timeout TIME (default 20s): an engine silent that long mid-answer is answered to\n"
            + "  the guest as host_error (keep it below the guest's 30s stall watchdog); --keep-alive TIME\n"
            + "  (default 5s): an empty chunk after that long without a frame, so the guest sees us alive.\n"
            + "--trace-timings (or HOMEBASE_TRACE_TIMINGS=1): one `timing:` line per request on stderr, even\n"
            + "  with --quiet: the uptime clock (ns) when the request arrived, then ns after it for admitted,\n"
            + "  engine-called, accept-posted, replica-written, first-engine-text, first-chunk-posted.\n"
            + "  Times only: no prompt, answer, key or sender.\n"
            + "--logind-bus ADDRESS (default $DBUS_SYSTEM_BUS_ADDRESS, else the system bus): where logind is; the\n"
            + "  agent holds a sleep delay lock and, before the machine sleeps, mails an away advert (no models)\n"
            + "  and closes its relay link within --sleep-goodbye (default 2s; logind waits 5s at most); on resume\n"
            + "  it reconnects and advertises. --sleep-watch off: no bus at all. Without logind `status` says so.\n"
            + "--runtime-limit N | URL=N[,URL=N] (default 0: none): requests at one runtime at once. Runtimes\n"
            + "  serving the same model share its requests, the least busy first; one that fails (unreachable, 5xx,\n"
            + "  a timeout) is skipped until it verifies again. `homebase status` shows each runtime's load.\n"
            + "--audit-grants on|off (default on), --audit-own on|off (default off): one JSON line per request\n"
            + "  in DATA-DIR/audit.jsonl (time, requester grant:ID or device:KEY, model, tokens in/out, outcome,\n"
            + "  duration; never prompt text), rotated to audit.jsonl.1 past --audit-max-bytes (default 10m).\n"
            + "--reply-shaping off|padded|cadence (default padded): what the relay may learn from reply sizes and\n"
            + "  timing (docs/SIDE-CHANNEL.md); padded quantises the end, --shaping-boundary TIME (default none)\n"
            + "  also releases the first chunk on a boundary; cadence sends one constant chunk every\n"
            + "  --cadence-interval (50ms) and keeps a stream open at least --cadence-min-duration (default 8s),\n"
            + "  else to a doubling of it.\n"
            + "--models-dir DIR (default DATA-DIR/models): the folder `guest host pull` downloads llama-server GGUF\n"
            + "  files into (start llama-server with --models-dir DIR to serve them); --hub-url URL (default\n"
            + "  https://huggingface.co): where OWNER/REPO/FILE.gguf is fetched from."

    static func run(_ f: ParsedArguments, _ c: HomebaseCLI.Context) async throws -> Int32 {
        guard f.positionals.isEmpty else { throw UsageError.invalid("run takes no arguments") }
        let settings = try Settings.layered(path: c.configPath, explicit: c.configExplicit, environment: c.environment, flags: f)
        var config = try settings.configuration()
        if config.modelsFolder == nil { config.modelsFolder = c.files.dataDir + "/models" }
        let quiet = f.has("--quiet")
        config.traceTimings = f.has("--trace-timings") || c.environment["HOMEBASE_TRACE_TIMINGS"] == "1"
        config.log = { line in if !quiet || line.hasPrefix("timing: ") { err("homebase: \(line)") } }
        let agent = try HomebaseAgent(configuration: config, files: c.files)

        StopSignal.install()
        agent.start()
        // The handler only stores the signal number (async-signal-safe); this loop notices it.
        while StopSignal.received == 0 { try? await Task.sleep(for: .milliseconds(50)) }
        err("homebase: signal \(StopSignal.received): stopping")
        await agent.stop()
        return 0
    }
}

/// SIGTERM/SIGINT, caught by a plain handler. A handler, not signalfd or a dispatch source:
/// those need the signal blocked in every thread, and threads we did not start may not block it.
enum StopSignal {
    private static let caught = Atomic<Int32>(0)

    static var received: Int32 { caught.load(ordering: .acquiring) }

    static func install() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGTERM, SIGINT] { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)  // a parent may have spawned us with them blocked
        for s in [SIGTERM, SIGINT] { signal(s, onStopSignal) }
    }

    fileprivate static func store(_ sig: Int32) { caught.store(sig, ordering: .releasing) }
}

private func onStopSignal(_ sig: Int32) { StopSignal.store(sig) }
