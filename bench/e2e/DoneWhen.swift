// Issue 18's remaining done-when rows, each with the product's default settings where the row is
// about them: the guest cooling down a Homebase found silent (the next question on-device at
// once), an engine stalling behind the Homebase (the Homebase's error before the guest's 30 s
// stall rung), the guest's own link black-holed mid-answer (no wait after the rung: the cancel
// is not awaited) and the relay killed and restarted (the Homebase back within 2 s). The faults
// are made as the fault tests make them (Tests/EndToEndTests/FaultSuite*): SIGSTOP, the TEST
// stand-in engine in stall mode, the TEST black-hole proxy, SIGKILL. Worlds: DoneWhenWorlds.swift, BlackHoledWorld.swift.
import BenchSupport
import Foundation
import GuestAgent
import Inference
import RelayRouting
import Routing

enum DoneWhen {
    /// The cooldown row, in the main world: the Homebase frozen (SIGSTOP); the first question
    /// finds it silent through the relay's probe and cools it down (the runner as `guest chat`
    /// builds it, with the guest's cooldown file); the second question is timed.
    static func cooldown(_ o: Options, procs: Processes, host: Child, guest: BenchGuest) async throws -> FaultRow {
        var row = FaultRow(fault: "after a Homebase went silent (frozen, found by the relay's probe): the next question",
                           limit: "defaults (cooldown 60 s, accept rung 10 s, probe 500 + 750 ms)",
                           from: "send → first on-device token", goal: "at once (not the 750 ms probe)")
        guest.use(WatchdogLimits())
        var runner = guest.runner()
        runner.cooldowns = guest.context.cooldowns
        let hostKey = guest.context.router.resolve().route.homebaseKey
        for i in 0..<o.faultRuns {
            let connected = Faults.connections(procs)
            procs.freeze(host)
            try await Faults.stopped(host)
            let first = try await guest.ask(runner, Faults.request(16, i))
            let second = try await guest.ask(runner, Faults.request(16, i))
            procs.thaw(host)
            row.runs += 1
            if first.fallbackAt != nil { row.ended("first question: the relay's probe") }
            if second.brain == .onDevice {
                row.onDevice += 1
                row.ended(second.fallbackAt == nil ? "second: on-device without asking" : "second: asked the Homebase again")
                if let t = second.texts.first(where: { t in second.fallbackAt.map { t > $0 } ?? true }) {
                    row.total.add(ms(t - second.start))
                }
            }
            if let hostKey { guest.context.cooldowns.clear(hostKey) }
            try await Faults.settle(procs, after: connected)
        }
        return row
    }

    /// The engine behind the Homebase stalls after its first text (the stand-in engine); the
    /// Homebase's engine idle limit (20 s) is below the guest's stall rung (30 s), both default.
    static func engineStall(_ o: Options, world w: DoneWhenWorlds.EngineStall) async throws -> FaultRow {
        var row = FaultRow(fault: "the engine behind the Homebase stalls mid-answer",
                           limit: "defaults (Homebase engine idle 20 s, guest stall rung 30 s)",
                           from: "last Homebase text → first on-device token", goal: "the Homebase's error before the 30 s rung")
        let runner = w.guest.runner()
        for i in 0..<o.engineStallRuns {
            let t = try await w.guest.ask(runner, Faults.request(64, i))
            row.runs += 1
            switch t.metadata.tried.first?.failure {
            case .host(.hostError, _)?: row.ended("the Homebase's host_error")
            case .watchdog(.stall)?: row.ended("the guest's stall rung")
            case let other: row.ended("other: \(other.map(\.description) ?? "")")
            }
            guard t.brain == .onDevice, let fell = t.fallbackAt, let first = t.fallbackText else { continue }
            row.onDevice += 1
            let last = t.texts.last(where: { $0 < fell }) ?? t.start
            row.total.add(ms(first - last))
            row.detect.add(ms(fell - last))
        }
        return row
    }

    /// The guest's own connection black-holed (the proxy stops forwarding it, closing nothing)
    /// right after the Homebase's first text; the stall rung fires and the guest's `cancel` goes
    /// onto the dead link. A fresh guest (new link) each run, its on-device engine warmed first.
    /// The tiny model's answer takes about 130 ms, so the proxy is sometimes too late.
    static func guestBlackHoled(_ o: Options, world w: BlackHoledWorld) async throws -> FaultRow {
        var row = FaultRow(fault: "the guest's own link black-holed mid-answer (no FIN)",
                           limit: "stall rung \(o.stallMs) ms (the rung's length is not in the figure)",
                           from: "the rung firing (last Homebase text + \(o.stallMs) ms) → first on-device token",
                           goal: "no extra wait (was 5 s: the cancel awaited)")
        // The Homebase connects first, so the proxy's "newest" is each run's fresh guest.
        _ = try w.runHomebase()
        // Until --fault-runs are timed (a run the Homebase finished before the proxy acted is
        // not), at most three times as many tries.
        for i in 0..<(3 * o.faultRuns) where row.total.count < o.faultRuns {
            let guest = try await BenchGuest(w.world, dataDir: w.guestDir, watchdog: WatchdogLimits(stall: .milliseconds(o.stallMs)))
            do {
                _ = try await guest.warmOnDevice()
                let holed = w.holedCount()
                let t = try await guest.ask(guest.runner(), Faults.request(400, i)) { w.holeNewest() }
                row.runs += 1
                let failure = t.metadata.tried.first?.failure
                if t.brain != .onDevice {
                    // The whole answer arrived before the proxy acted on the trigger: not timed.
                    row.ended("the Homebase finished before the hole (not timed)")
                } else {
                    row.ended(failure == .watchdog(.stall) ? "the guest's stall rung" : "other: \(failure.map(\.description) ?? "")")
                }
                if w.holedCount() <= holed { row.ended("the proxy never black-holed it") }
                if t.brain == .onDevice, let fell = t.fallbackAt, let first = t.fallbackText {
                    row.onDevice += 1
                    let last = t.texts.last(where: { $0 < fell }) ?? t.start
                    row.total.add(ms(first - last) - Double(o.stallMs))
                    row.detect.add(ms(fell - last) - Double(o.stallMs))
                }
            } catch {
                await guest.stop()
                throw error
            }
            await guest.stop()
        }
        return row
    }

    /// The relay SIGKILLed and started again after `--relay-outage-s` on the same port and data
    /// directory; measured from the relay accepting connections again to the Homebase's
    /// "connected to the relay" (polled every 2 ms).
    static func relayRestart(_ o: Options, world w: DoneWhenWorlds.RelayRestart) async throws -> FaultRow {
        var row = FaultRow(fault: "the relay killed (SIGKILL) and started again after \(o.relayOutageS) s",
                           limit: "defaults (the Homebase's reconnect schedule)",
                           from: "the relay accepting again → the Homebase connected", goal: "≤ 2 s")
        for _ in 0..<o.relayRuns {
            let before = w.connections()
            w.killRelay()
            try await Task.sleep(for: .seconds(o.relayOutageS))
            try w.startRelay()
            let deadline = ContinuousClock.now + .seconds(30)
            while !Processes.canConnect(w.port), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
            let back = ContinuousClock.now
            while w.connections() <= before, ContinuousClock.now < deadline + .seconds(60) {
                try await Task.sleep(for: .milliseconds(2))
            }
            row.runs += 1
            if w.connections() > before {
                row.total.add(ms(ContinuousClock.now - back))
                row.ended("connected")
            } else {
                row.ended("not back within 90 s")
            }
        }
        return row
    }

    static func print(_ rows: [FaultRow]) {
        Swift.print("""
            ### Issue 18's done-when rows

            "before the fallback" is the part of p50 before the fallback began (the Homebase's error, the rung's \
            own handling); the rest is the on-device engine's first token.

            | fault | settings | measured | answered on-device | ended by | p50 ms | p99 ms | max ms | before the fallback p50 ms | goal |
            |---|---|---|---:|---|---:|---:|---:|---:|---|
            """)
        for r in rows {
            let ended = r.endedBy.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            let answered = r.from.contains("relay accepting") ? "-" : "\(r.onDevice) of \(r.runs)"
            Swift.print("| \(r.fault) | \(r.limit) | \(r.from) | \(answered) | \(ended) | \(fmt(r.total.p50, 1)) "
                        + "| \(fmt(r.total.p99, 1)) | \(fmt(r.total.max, 1)) | \(fmt(r.detect.p50, 1)) | \(r.goal) |")
        }
        Swift.print("")
    }
}
