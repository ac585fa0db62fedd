// bench-homebase: the Homebase's own cost on the real tiny model (issue #4's benchmark, moved
// here from a test). The agent runs in this process so its chunk probe can time each chunk from
// the engine's text arriving to the sealed chunk handed to the link; the relay and llama-server
// are real processes; the guest is a second device (its own identity, link and Courier).
// Run: make bench-homebase (BENCH_HOMEBASE_FLAGS="..."), or .build/release/bench-homebase --help.
import BenchSupport
import Foundation

@main struct BenchHomebase {
    static let usage = """
        usage: bench-homebase [--rounds N] [--tokens N] [--batch-delays MS,MS] [--relay-delay-ms MS] [--engine-poll 0-100]
                              [--client-only]

        Starts a real relay and llama-server (tiny model) on loopback, runs a Homebase agent in this
        process against them and a guest device beside it; for each batch-delay policy (default 20,0)
        runs --rounds (default 8) pairs of one --tokens (default 512) answer on the engine alone and
        one through the Homebase and the relay, alternating which goes first. Prints a markdown table,
        then the host's steps before the engine per relayed answer (the agent's timing trace).
        --relay-delay-ms (default 0) puts the relay that far away, each way, for the Homebase and the
        guest alike (a delaying TCP proxy in front of it on loopback). --engine-poll passes llama-server's
        `--poll` (how hard its idle threads spin for work; default: the engine's own, 50).
        --client-only streams --rounds answers from llama-server through the engine client alone (no
        relay, no agent) and prints its CPU per 1,000 tokens: a fixed workload for valgrind's instruction count.
        BENCH_VERBOSE=1 also prints each round on stderr (the outliers of a loaded machine).
        """

    static func main() async {
        lineBufferedOutput()
        var rounds = 8, tokens = 512, delays = [20, 0], relayDelay = 0, poll: Int?, clientOnly = false
        var args = Array(CommandLine.arguments.dropFirst())
        func fail(_ m: String) -> Never {
            FileHandle.standardError.write(Data("bench-homebase: \(m)\n\(usage)\n".utf8))
            exit(2)
        }
        while !args.isEmpty {
            let flag = args.removeFirst()
            if flag == "--help" || flag == "-h" { print(usage); exit(0) }
            if flag == "--client-only" { clientOnly = true; continue }
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
            case "--relay-delay-ms":
                guard let n = Int(value), (0...10_000).contains(n) else { fail("--relay-delay-ms takes 0-10000 milliseconds") }
                relayDelay = n
            case "--engine-poll":
                guard let n = Int(value), (0...100).contains(n) else { fail("--engine-poll takes 0-100 (llama-server's --poll)") }
                poll = n
            default: fail("unknown flag \(flag)")
            }
        }
        do {
            if clientOnly {
                try await ClientStream.run(rounds: rounds, tokens: tokens, poll: poll)
            } else {
                try await run(rounds: rounds, tokens: tokens, delays: delays, relayDelayMs: relayDelay, poll: poll)
            }
        } catch {
            FileHandle.standardError.write(Data("bench-homebase: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(rounds: Int, tokens: Int, delays: [Int], relayDelayMs: Int, poll: Int?) async throws {
        let bin = try Binaries.locate(needs: ["homebase-relay", "homebase"])
        let procs = try Processes(prefix: "bench-homebase")
        defer { procs.stopAll() }
        let world = World(procs: procs, bin: bin)
        printReportHead("bench-homebase")
        print("relay: `homebase-relay serve --rate 1000000 --burst 1000000` (per-key rate limit lifted)  ")
        // The relay's per-key rate limit lifted (as bench-relay does): at batch-delay 0 the
        // Homebase sends one frame per token, ~5,000 per second, and the default 500 closes it.
        var proxy: DelayProxy?, origin: [String] = []
        if relayDelayMs > 0 {
            // The relay signs over the origin the devices dial: the proxy's.
            let p = try DelayProxy(delayMs: relayDelayMs)
            proxy = p
            origin = ["--origin", "ws://127.0.0.1:\(p.port)"]
            print("relay delay: \(relayDelayMs) ms each way (a delaying TCP proxy in front of the relay)  ")
        }
        defer { proxy?.stop() }
        let started = try world.startRelay(["--rate", "1000000", "--burst", "1000000"] + origin)
        var relay = started
        if let p = proxy {
            guard let port = UInt16(started.url.split(separator: ":").last ?? "") else { throw BenchError("relay URL \(started.url) has no port") }
            p.upstream.set(port)
            relay.url = "ws://127.0.0.1:\(p.port)"
        }
        let engine = try await world.startEngine(slots: 4, context: 4096, extra: poll.map { ["--poll", "\($0)"] } ?? [])
        if let poll { print("engine: llama-server --poll \(poll)  ") }
        let host = try HomebaseSetup.create(world, engineURL: engine.url)
        let guest = try GuestDevice(relayURL: relay.url, hostRecordHex: host.recordHex)
        try host.addDevice(guest.recordHex)
        try await guest.start()
        print("")
        var rows: [Policy] = []
        for delay in delays {
            rows.append(try await Policy.measure(delayMs: delay, rounds: rounds, tokens: tokens, relayURL: relay.url,
                                                 hostDataDir: host.dataDir, engineURL: engine.url, guest: guest,
                                                 pids: .init(relay: started.child.pid, engine: engine.child.pid)))
        }
        Policy.print(rows, rounds: rounds, tokens: tokens)
        HopCPU.print(rows)
        HostSteps.print(rows.map { ($0.delayMs, $0.steps) })
        let trip = try await TripSteps.measure(guest: guest, hostDataDir: host.dataDir, relayURL: relay.url,
                                               engineURL: engine.url, work: procs.work)
        trip.print(wayIn: rows[0].steps.wayIn)
        print("load average at end: \(Machine.loadAverage)  ")
        print("logs: \(procs.work)")
        guest.stop()
    }
}
