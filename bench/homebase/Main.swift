// bench-homebase: the Homebase's own cost on the real tiny model (issue #4's benchmark, moved
// here from a test). The agent runs in this process so its chunk probe can time each chunk from
// the engine's text arriving to the sealed chunk handed to the link; the relay and llama-server
// are real processes; the guest is a second device (its own identity, link and Courier).
// Run: make bench-homebase (BENCH_HOMEBASE_FLAGS="..."), or .build/release/bench-homebase --help.
import BenchSupport
import Foundation

@main struct BenchHomebase {
    static let usage = """
        usage: bench-homebase [--rounds N] [--tokens N] [--batch-delays MS,MS]

        Starts a real relay and llama-server (tiny model) on loopback, runs a Homebase agent in this
        process against them and a guest device beside it; for each batch-delay policy (default 20,0)
        runs --rounds (default 8) pairs of one --tokens (default 512) answer on the engine alone and
        one through the Homebase and the relay, alternating which goes first. Prints a markdown table.
        BENCH_VERBOSE=1 also prints each round on stderr (the outliers of a loaded machine).
        """

    static func main() async {
        lineBufferedOutput()
        var rounds = 8, tokens = 512, delays = [20, 0]
        var args = Array(CommandLine.arguments.dropFirst())
        func fail(_ m: String) -> Never {
            FileHandle.standardError.write(Data("bench-homebase: \(m)\n\(usage)\n".utf8))
            exit(2)
        }
        while !args.isEmpty {
            let flag = args.removeFirst()
            if flag == "--help" || flag == "-h" { print(usage); exit(0) }
            guard let value = args.first else { fail("\(flag) takes a value") }
            args.removeFirst()
            switch flag {
            case "--rounds":
                guard let n = Int(value), n > 0 else { fail("--rounds takes a positive whole number") }
                rounds = n
            case "--tokens":
                guard let n = Int(value), (1...960).contains(n) else { fail("--tokens takes 1-960 (a slot holds 1,024)") }
                tokens = n
            case "--batch-delays":
                let list = value.split(separator: ",").compactMap { Int($0) }.filter { $0 >= 0 }
                if list.isEmpty { fail("--batch-delays takes milliseconds, comma-separated: 20,0") }
                delays = list
            default: fail("unknown flag \(flag)")
            }
        }
        do {
            try await run(rounds: rounds, tokens: tokens, delays: delays)
        } catch {
            FileHandle.standardError.write(Data("bench-homebase: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(rounds: Int, tokens: Int, delays: [Int]) async throws {
        let bin = try Binaries.locate(needs: ["homebase-relay", "homebase"])
        let procs = try Processes(prefix: "bench-homebase")
        defer { procs.stopAll() }
        let world = World(procs: procs, bin: bin)
        print("## bench-homebase")
        print("")
        print("command: `bench-homebase \(CommandLine.arguments.dropFirst().joined(separator: " "))`  ")
        print("machine: \(Machine.summary)  ")
        print("load average at start: \(Machine.loadAverage)  ")
        print("relay: `homebase-relay serve --rate 1000000 --burst 1000000` (per-key rate limit lifted)  ")
        // The relay's per-key rate limit lifted (as bench-relay does): at batch-delay 0 the
        // Homebase sends one frame per token, ~5,000 per second, and the default 500 closes it.
        let relay = try world.startRelay(["--rate", "1000000", "--burst", "1000000"])
        let engine = try await world.startEngine(slots: 4, context: 4096)
        let host = try HomebaseSetup.create(world, engineURL: engine.url)
        let guest = try GuestDevice(relayURL: relay.url, hostRecordHex: host.recordHex)
        try host.addDevice(guest.recordHex)
        try await guest.start()
        print("")
        var rows: [Policy] = []
        for delay in delays {
            rows.append(try await Policy.measure(delayMs: delay, rounds: rounds, tokens: tokens, relayURL: relay.url,
                                                 hostDataDir: host.dataDir, engineURL: engine.url, guest: guest))
        }
        Policy.print(rows, rounds: rounds, tokens: tokens)
        print("load average at end: \(Machine.loadAverage)  ")
        print("logs: \(procs.work)")
        guest.stop()
    }
}
