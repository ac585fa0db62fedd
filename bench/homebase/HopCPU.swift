// CPU per 1,000 streamed tokens at each hop (#24): user + system of the relay and llama-server
// from /proc/PID/stat, and of this process (the Homebase agent and the guest device: both run
// here, so getrusage counts them together) over the relayed answers, and apart over the direct ones.
import BenchSupport

struct HopCPU {
    struct Pids { let relay: Int32, engine: Int32 }

    let relayed: CPUMeter, direct: CPUMeter
    var relayedTokens = 0, directTokens = 0
    /// This process's voluntary context switches (getrusage: a thread parking, which is what a
    /// task hand-off or a wait on a socket costs) over the counted answers of each kind.
    var relayedSwitches = 0, directSwitches = 0, relayedAnswers = 0, directAnswers = 0

    init(_ p: Pids) {
        relayed = CPUMeter([("bench", 0), ("relay", p.relay), ("engine", p.engine)])
        direct = CPUMeter([("bench", 0), ("engine", p.engine)])
    }

    static func print(_ rows: [Policy]) {
        Swift.print("""
            ### CPU per 1,000 streamed tokens

            ms of CPU (user + system) per 1,000 completion tokens over the counted rounds; children from \
            /proc/PID/stat (10 ms ticks), this process from getrusage. "bench process" is the Homebase agent \
            and the guest device together on the relayed path (both run in this process), the bench's own \
            HTTP client on the direct one. The hops' share is the bench process plus the relay over the \
            engine's own CPU for the same tokens. Voluntary context switches per answer (this process, \
            getrusage, every thread): a thread parking each, so relayed minus direct counts the hand-offs \
            the Homebase and the guest add, whatever the load.

            | batch-delay | tokens relayed / direct | bench process relayed (Homebase + guest) / direct (client) | homebase-relay | llama-server relayed / direct | hops / engine | bench process voluntary context switches per answer, relayed / direct |
            |---|---:|---:|---:|---:|---:|---:|
            """)
        for p in rows {
            let c = p.cpu, rt = c.relayedTokens, dt = c.directTokens
            let bench = c.relayed.msPer1000("bench", tokens: rt), relay = c.relayed.msPer1000("relay", tokens: rt)
            let engine = c.relayed.msPer1000("engine", tokens: rt)
            Swift.print("| \(p.delayMs) ms | \(rt) / \(dt) | \(fmt(bench, 1)) / \(fmt(c.direct.msPer1000("bench", tokens: dt), 1)) "
                        + "| \(fmt(relay, 1)) | \(fmt(engine, 1)) / \(fmt(c.direct.msPer1000("engine", tokens: dt), 1)) "
                        + "| \(fmt(100 * (bench + relay) / engine, 1))% "
                        + "| \(fmt(Double(c.relayedSwitches) / Double(max(1, c.relayedAnswers)), 0)) / \(fmt(Double(c.directSwitches) / Double(max(1, c.directAnswers)), 0)) |")
        }
        Swift.print("")
    }
}
