// bench-router: the guest's routing decision (Router.resolve + provider, settings re-read from
// SQLite at every call) and "not-here → first on-device token" with the real on-device engine.
// Run: make bench-router (BENCH_ROUTER_FLAGS="..."), or .build/release/bench-router --help.
import BenchSupport
import Foundation
import Inference
import RelayRouting
import Routing

@main struct BenchRouter {
    static let usage = """
        usage: bench-router [--calls N] [--runs N]

        Starts a real relay, llama-server on the tiny model and a Homebase on loopback, sets up a
        guest through its CLI and opens it in-process (as `guest chat` does), then prints:
          decision  p50/p99 of Router.provider(for:) (resolve + build, settings re-read) for each
                    route shape, --calls calls each (default 2000)
          not-here  the Homebase is killed while its advert is fresh: time from the call to the
                    relay's not-here and to the first on-device token, --runs runs (default 20)
        """

    static func main() async {
        lineBufferedOutput()
        var calls = 2000, runs = 20
        var args = Array(CommandLine.arguments.dropFirst())
        while !args.isEmpty {
            let flag = args.removeFirst()
            if flag == "--help" || flag == "-h" { print(usage); exit(0) }
            guard ["--calls", "--runs"].contains(flag), let v = args.first.flatMap(Int.init), v > 0 else {
                FileHandle.standardError.write(Data("bench-router: bad flag \(flag) (a flag and a positive whole number)\n\(usage)\n".utf8))
                exit(2)
            }
            args.removeFirst()
            if flag == "--calls" { calls = v } else { runs = v }
        }
        do {
            try await run(calls: calls, runs: runs)
        } catch {
            FileHandle.standardError.write(Data("bench-router: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(calls: Int, runs: Int) async throws {
        let bin = try Binaries.locate(needs: ["homebase-relay", "homebase", "guest"])
        let procs = try Processes(prefix: "bench-router")
        defer { procs.stopAll() }
        let world = World(procs: procs, bin: bin)
        printReportHead("bench-router")
        let relay = try world.startRelay()
        let engine = try await world.startEngine(slots: 4, context: 2048)
        let host = try HomebaseSetup.create(world, engineURL: engine.url)
        let dir = procs.work + "/guest"
        try host.addDevice(try BenchGuest.setUp(world, dataDir: dir, account: host.accountKey, relay: relay.url,
                                                hostRecord: host.recordHex))
        let homebase = try host.run(relay: relay.url, [])
        let guest = try await BenchGuest(world, dataDir: dir, watchdog: WatchdogLimits())
        print("")
        do {
            try Decisions.print(Decisions.measure(guest, calls: calls))
            let cold = try await guest.warmOnDevice()
            procs.kill(homebase)
            try await Task.sleep(for: .milliseconds(300))
            NotHere.print(try await NotHere.measure(guest, runs: runs), cold: ms(cold))
        } catch {
            await guest.stop()  // its on-device llama-server too
            throw error
        }
        print("load average at end: \(Machine.loadAverage)  ")
        print("logs: \(procs.work)")
        await guest.stop()
    }
}
