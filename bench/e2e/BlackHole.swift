// The Homebase's network goes silent without a FIN (Wi-Fi gone, a machine asleep): a second,
// small world whose devices reach their relay through the TEST black-hole proxy, so the main
// world's latency figures carry no proxy hop. Each run the proxy stops forwarding the
// Homebase's connection (the newest: the guest's link was opened first), the guest asks with
// its default rungs (accept 10 s), and the relay's liveness probe finds the Homebase silent.
// The Homebase is restarted after each run (its own link would notice only at 45 s).
import BenchSupport
import Foundation
import Inference
import RelayRouting

enum BlackHole {
    static func run(_ o: Options, world: World, engineURL: String) async throws -> FaultRow {
        let holed = try BlackHoledWorld.start(world, name: "blackholed", engineURL: engineURL)
        let guest = try await BenchGuest(world, dataDir: holed.guestDir, watchdog: WatchdogLimits())
        do {
            let row = try await measure(o, world.procs, holed, guest)
            await guest.stop()  // its on-device llama-server too
            return row
        } catch {
            await guest.stop()
            throw error
        }
    }

    private static func measure(_ o: Options, _ procs: Processes, _ w: BlackHoledWorld, _ guest: BenchGuest) async throws -> FaultRow {
        _ = try await guest.warmOnDevice()
        let runner = guest.runner()
        var row = FaultRow(fault: "Homebase black-holed (its connection stops forwarding, no FIN), advert fresh → relay's liveness probe",
                           limit: "probe-after 500 ms + probe-timeout 750 ms (accept rung 10 s)", from: "send")
        for i in 0..<o.faultRuns {
            // The Homebase connects after the guest: its connection is the newest.
            let homebase = try w.runHomebase()
            try await Task.sleep(for: .milliseconds(500))  // its advert reaches the guest
            let holed = w.holedCount()
            guard w.holeNewest() else { throw BenchError("could not write \(w.trigger)") }
            try procs.waitUntil(10, "the proxy to black-hole") { w.holedCount() > holed }
            Faults.record(&row, try await guest.ask(runner, Faults.request(16, i)), from: nil)
            procs.kill(homebase)
        }
        return row
    }
}
