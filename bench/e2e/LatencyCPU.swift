// CPU per streamed token at each hop (#24): the latency section's counted runs, CPU time (user +
// system) of every process on the path over the relayed answers and, apart, over the direct ones.
import BenchSupport

/// The processes of the path (the guest is this process).
struct HopPids {
    let relay: Int32, homebase: Int32, engine: Int32

    func relayedMeter() -> CPUMeter {
        CPUMeter([("guest", 0), ("relay", relay), ("homebase", homebase), ("engine", engine)])
    }

    func directMeter() -> CPUMeter { CPUMeter([("client", 0), ("engine", engine)]) }
}

enum LatencyCPU {
    static func print(_ r: LatencyResult) {
        guard let relayed = r.relayedCPU, let direct = r.directCPU else { return }
        let rt = r.relayedTokens, dt = r.directTokens
        func cell(_ m: CPUMeter, _ name: String, _ tokens: Int) -> String { fmt(m.msPer1000(name, tokens: tokens), 1) }
        let hops = ["guest", "relay", "homebase"].map { relayed.msPer1000($0, tokens: rt) }.reduce(0, +)
        let engineRelayed = relayed.msPer1000("engine", tokens: rt), engineDirect = direct.msPer1000("engine", tokens: dt)
        Swift.print("""
            CPU per 1,000 streamed tokens (ms of CPU, user + system; children from /proc/PID/stat in 10 ms ticks, \
            the in-process guest from getrusage), over the counted runs: \(rt) completion tokens relayed, \(dt) direct.

            | hop | relayed path | direct path |
            |---|---:|---:|
            | guest (this process: router, Courier, relay link; the direct row: the bench's HTTP client) | \(cell(relayed, "guest", rt)) | \(cell(direct, "client", dt)) |
            | homebase-relay | \(cell(relayed, "relay", rt)) | - |
            | homebase (Homebase agent) | \(cell(relayed, "homebase", rt)) | - |
            | llama-server (the engine's own) | \(fmt(engineRelayed, 1)) | \(fmt(engineDirect, 1)) |

            The three hops together: \(fmt(hops, 1)) ms per 1,000 tokens, \
            \(fmt(100 * hops / engineRelayed, 1))% of the engine's own CPU for the same tokens.

            """)
    }
}
