// bench-e2e: the product end to end on loopback, real processes, one run, markdown tables.
// Run: make bench-e2e (BENCH_E2E_FLAGS="..."), or .build/release/bench-e2e --help.
import Basics
import BenchSupport
import Foundation
import Inference
import RelayRouting
import Sealing

@main struct BenchE2E {
    static func main() async {
        lineBufferedOutput()
        let options: Options
        do {
            options = try Options(Array(CommandLine.arguments.dropFirst()))
        } catch let e as UsageError {
            if let m = e.message {
                FileHandle.standardError.write(Data("bench-e2e: \(m)\n\(Options.usage)\n".utf8))
                exit(2)
            }
            print(Options.usage)
            exit(0)
        } catch {
            exit(2)
        }
        do {
            try await run(options)
        } catch {
            FileHandle.standardError.write(Data("bench-e2e: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run(_ o: Options) async throws {
        let bin = try Binaries.locate(needs: ["homebase-relay", "homebase", "guest"])
        let files = Machine.raiseFileLimit()
        if o.sections.contains("crowd"), files < 2 * o.crowdDevices + 100 {
            throw BenchError("the open-file limit is \(files): \(o.crowdDevices) devices need about \(2 * o.crowdDevices + 100) (ulimit -n)")
        }
        let procs = try Processes(prefix: "bench-e2e")
        defer { procs.stopAll() }
        let world = World(procs: procs, bin: bin)
        printReportHead("bench-e2e")

        // The three programs, set up through their CLIs as a user would.
        var relayFlags = o.relayRate.map { ["--rate", "\($0)", "--burst", "\($0)"] } ?? []
        if o.sections.contains("crowd") {
            // Every crowd device connects from 127.0.0.1: the per-address limits would refuse the 65th.
            let n = "\(o.crowdDevices + 100)"
            relayFlags += ["--ip-max-connections", n, "--ip-max-pending", n, "--ip-accept-rate", "100000", "--ip-accept-burst", "100000"]
        }
        let relay = try world.startRelay(relayFlags)
        let engine = try await world.startEngine(slots: o.slots, context: o.slots * o.slotContext, jinja: o.sections.contains("payloads"))
        let host = try HomebaseSetup.create(world, engineURL: engine.url)
        let guestDir = procs.work + "/guest"
        let guestRecord = try BenchGuest.setUp(world, dataDir: guestDir, account: host.accountKey, relay: relay.url,
                                               hostRecord: host.recordHex)
        try host.addDevice(guestRecord)
        let crowd = o.sections.contains("crowd") ? try Crowd(devices: o.crowdDevices, hostDataDir: host.dataDir) : nil
        let homebase = try host.run(relay: relay.url, ["--max-concurrent", "\(o.slots)", "--queue-length", "\(o.streams)",
                                                       "--queue-wait", "\(o.crowdWaitS)s"])
        if crowd != nil { try await Task.sleep(for: .seconds(2)) }  // its adverts to the grantees are stored first
        let guest = try await BenchGuest(world, dataDir: guestDir, watchdog: WatchdogLimits())
        do {
            try await measure(o, world: world, relay: relay, engineURL: engine.url, host: host, homebase: homebase,
                              guest: guest, crowd: crowd, enginePid: engine.child.pid)
        } catch {
            await guest.stop()  // its on-device llama-server too
            throw error
        }
    }

    static func measure(_ o: Options, world: World, relay: (url: String, child: Child), engineURL: String,
                        host: HomebaseSetup, homebase: Child, guest: BenchGuest, crowd: Crowd?, enginePid: Int32) async throws {
        let procs = world.procs
        let guestDir = procs.work + "/guest"
        let decision = guest.context.router.resolve()
        print("setup: relay `homebase-relay serve` (ws, loopback\(o.relayRate.map { ", --rate/--burst \($0)" } ?? ", default limits")); "
              + "`homebase run` (max-concurrent \(o.slots), batch-delay 20 ms); llama-server on the tiny model "
              + "(\(o.slots) slots, ctx \(o.slots * o.slotContext)\(o.sections.contains("payloads") ? ", --jinja" : "")); the guest in this process through its libraries "
              + "(GuestContext, GuestLink, Router, AnswerRunner: what `guest chat` runs). Route: \(decision.reason)  ")
        let cold = try await guest.warmOnDevice()
        print("")

        if o.sections.contains("latency") {
            let hops = HopPids(relay: relay.child.pid, homebase: homebase.pid, engine: enginePid)
            Latency.print(try await Latency.run(o, engineURL: engineURL, guest: guest, hops: hops), o)
        }
        if let crowd, let hostRecord = DeviceRecordHex.parse(host.recordHex) {
            Crowd.print(try await crowd.run(o, relayURL: relay.url, engineURL: engineURL, relay: relay.child, host: homebase, hostRecord: hostRecord), o)
        }
        var last = guest
        var homebase = homebase
        if o.sections.contains("payloads") {
            let flags = ["--max-concurrent", "\(o.slots)", "--queue-length", "\(o.streams)", "--queue-wait", "\(o.crowdWaitS)s"]
            var swaps = 0
            // The Homebase's runtime swapped (`runtime remove`, `runtime add`), restarted, and a
            // fresh guest that has read its new advert.
            let swap: (String, String) async throws -> BenchGuest = { to, from in
                procs.kill(homebase)
                await last.stop()
                _ = try procs.must(world.bin.path("homebase"), ["--data-dir", host.dataDir, "runtime", "remove", from])
                try procs.waitUntil(60, "homebase runtime add \(to)") {
                    ((try? procs.run(world.bin.path("homebase"), ["--data-dir", host.dataDir, "runtime", "add", to]))?.status ?? 1) == 0
                }
                swaps += 1
                homebase = try host.run(relay: relay.url, flags, log: "homebase-\(swaps).log")
                last = try await BenchGuest(world, dataDir: guestDir, watchdog: WatchdogLimits())
                return last
            }
            let (r, g) = try await Payloads.run(o, engineURL: engineURL, guest: last, swap: swap, world: world)
            last = g
            Payloads.print(r, o)
        }
        if o.sections.contains("faults") {
            let restart = { try host.run(relay: relay.url, ["--max-concurrent", "\(o.slots)", "--queue-length", "\(o.streams)",
                                                            "--queue-wait", "\(o.crowdWaitS)s"]) }
            // Issue 18's rows (DoneWhen.swift): the cooldown first, while the main Homebase lives.
            var doneWhen = [try await DoneWhen.cooldown(o, procs: procs, host: homebase, guest: last)]
            let (rows, g) = try await Faults.run(o, world: world, host: homebase, guest: last, restartHost: restart) {
                try await BenchGuest(world, dataDir: guestDir, watchdog: WatchdogLimits())
            }
            last = g
            let blackHoled = try await BlackHole.run(o, world: world, engineURL: engineURL)
            Faults.print(rows + [blackHoled], cold: ms(cold))
            let stalled = try await DoneWhenWorlds.EngineStall.start(world, relay: relay.url)
            doneWhen.append(try await DoneWhen.engineStall(o, world: stalled))
            await stalled.guest.stop()
            doneWhen.append(try await DoneWhen.guestBlackHoled(o, world: try BlackHoledWorld.start(world, name: "guest-holed", engineURL: engineURL)))
            doneWhen.append(try await DoneWhen.relayRestart(o, world: try DoneWhenWorlds.RelayRestart(world, engineURL: engineURL)))
            DoneWhen.print(doneWhen)
        }
        if o.sections.contains("cold") && !o.sections.contains("faults") {
            let (row, g) = try await Faults.coldOnly(o, procs: procs, host: homebase, guest: last) {
                try await BenchGuest(world, dataDir: guestDir, watchdog: WatchdogLimits())
            }
            last = g
            Faults.print([row], cold: ms(cold))
        }
        print("load average at end: \(Machine.loadAverage)  ")
        print("logs: \(procs.work)")
        await last.stop()
    }
}

enum DeviceRecordHex {
    static func parse(_ text: String) -> DeviceRecord? { bytes(fromHex: text).flatMap { try? DeviceRecord(encoded: $0) } }
}
