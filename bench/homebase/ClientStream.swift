// bench-homebase --client-only: the engine client alone (no relay, no agent), one answer after
// another from llama-server through `OpenAIChatClient`, the Homebase's own engine client. A fixed
// workload for counting the client's cost per token: CPU from getrusage here, and instructions
// under `valgrind --tool=callgrind` (two runs of different --rounds: the difference over the
// difference in tokens is the cost per token, start-up cancelled out).
import BenchSupport
import Foundation
import Glibc
import Inference

enum ClientStream {
    static func run(rounds: Int, tokens: Int, poll: Int?) async throws {
        let bin = try Binaries.locate(needs: [])
        let procs = try Processes(prefix: "bench-homebase-client")
        defer { procs.stopAll() }
        let engine = try await World(procs: procs, bin: bin)
            .startEngine(slots: 1, context: 2048, extra: poll.map { ["--poll", "\($0)"] } ?? [])
        let client = OpenAIChatClient(.init(baseURL: engine.url))
        _ = try await Policy.direct(client, tokens)  // warm-up: the connection and the engine's caches
        let meter = CPUMeter([("client", 0), ("engine", engine.child.pid)])
        var rates: [Double] = []
        let switches = contextSwitches()
        meter.start()
        for _ in 0..<rounds {
            let a = try await Policy.direct(client, tokens)
            rates.append(Double(tokens) / (a.total / 1000))
        }
        meter.stop()
        let n = rounds * tokens
        let (voluntary, involuntary) = contextSwitches() - switches
        printReportHead("bench-homebase --client-only")
        print("""
            ### The engine client alone

            \(rounds) answers of \(tokens) tokens from llama-server through OpenAIChatClient after one warm-up, \
            read to `.done`. CPU (user + system) per 1,000 tokens: this process from getrusage (the client, \
            curl's thread and the reader), llama-server from /proc/PID/stat. Context switches of this process \
            per 1,000 tokens (getrusage): voluntary ones are a thread parking (a task hand-off, curl waiting \
            on its socket), involuntary ones the machine's load.

            | tokens | engine tokens/s p50 | client ms CPU / 1,000 tokens | llama-server ms CPU / 1,000 tokens | client context switches / 1,000 tokens: voluntary / involuntary |
            |---:|---:|---:|---:|---:|
            | \(n) | \(fmt(Samples(rates).p50, 0)) | \(fmt(meter.msPer1000("client", tokens: n), 1)) | \(fmt(meter.msPer1000("engine", tokens: n), 1)) | \(fmt(Double(voluntary) * 1000 / Double(n), 0)) / \(fmt(Double(involuntary) * 1000 / Double(n), 0)) |

            load average at end: \(Machine.loadAverage)
            """)
    }

    /// This process's voluntary and involuntary context switches so far, every thread.
    static func contextSwitches() -> (Int, Int) {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return (u.ru_nvcsw, u.ru_nivcsw)
    }
}

private func - (a: (Int, Int), b: (Int, Int)) -> (Int, Int) { (a.0 - b.0, a.1 - b.1) }
