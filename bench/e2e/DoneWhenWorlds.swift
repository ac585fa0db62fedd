// The small worlds of DoneWhen.swift's rows, each set up through the CLIs as a user would and
// apart from the main world (so its latency figures carry no proxy hop and its relay is not
// restarted under it). The black-holed one is BlackHoledWorld.swift.
import BenchSupport
import Foundation
import RelayRouting
import TestSupport

enum DoneWhenWorlds {
    /// A Homebase on the TEST stand-in engine in stall mode (Tests/EndToEndTests/peers/
    /// standin_engine.py: the start of an answer, then silence), every setting default, and a
    /// guest with the default rungs.
    struct EngineStall {
        let guest: BenchGuest

        static func start(_ world: World, relay: String) async throws -> EngineStall {
            let procs = world.procs
            let port = try Processes.freePort()
            // --model tiny: the name the bench guest asks for (`ollama.model tiny`).
            _ = try procs.start(anyPython, [testsFile("EndToEndTests/peers/standin_engine.py"), "--port", "\(port)",
                                            "--mode", "stall", "--model", "tiny"], log: "standin-engine.log")
            try procs.waitUntil(30, "the stand-in engine") { Processes.canConnect(port) }
            let dir = procs.work + "/guest-engine-stall"
            let host = try HomebaseSetup.create(world, engineURL: "http://127.0.0.1:\(port)", name: "bench-engine-stall",
                                                dataDir: procs.work + "/host-engine-stall", guestDir: dir, relay: relay)
            _ = try host.run(relay: relay, [], log: "homebase-engine-stall.log")
            let guest = try await BenchGuest(world, dataDir: dir, watchdog: WatchdogLimits())
            _ = try await guest.warmOnDevice()
            return EngineStall(guest: guest)
        }
    }

    /// A relay on a fixed port and data directory, restarted by the row, and a Homebase (its
    /// one device is set up, never run: the Homebase's first advert is stored for it).
    final class RelayRestart: @unchecked Sendable {  // used from the bench's one task
        let world: World
        let port: Int
        private var relay: Child?
        private var starts = 0

        init(_ world: World, engineURL: String) throws {
            self.world = world
            port = try Processes.freePort()
            try startRelay()
            let url = "ws://127.0.0.1:\(port)"
            let host = try HomebaseSetup.create(world, engineURL: engineURL, name: "bench-relay-restart",
                                                dataDir: world.procs.work + "/host-relay-restart",
                                                guestDir: world.procs.work + "/guest-relay-restart", relay: url)
            _ = try host.run(relay: url, [], log: "homebase-relay-restart.log")
        }

        func startRelay() throws {
            starts += 1
            relay = try world.procs.start(world.bin.path("homebase-relay"),
                                          ["serve", "--listen", "127.0.0.1:\(port)", "--data-dir", world.procs.work + "/relay-restart",
                                           "--metrics-listen", "off"], log: "relay-restart-\(starts).log")
        }

        func killRelay() {
            if let relay { world.procs.kill(relay) }
            relay = nil
        }

        /// How many times the Homebase has connected to this relay (its log).
        func connections() -> Int {
            world.procs.read("homebase-relay-restart.log").components(separatedBy: "connected to the relay").count
        }
    }
}
