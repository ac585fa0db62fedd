// Time to the first fallback token for each fault, with the real Homebase process made to
// fail as a machine would: frozen (SIGSTOP: the relay's liveness probe finds it), killed
// mid-answer (SIGKILL: the relay's peer-gone), stalled mid-stream (SIGSTOP after its first
// text: the stall rung), gone (SIGKILL: the relay answers not-here), silent past the advert
// window, and black-holed (BlackHole.swift).
import BenchSupport
import Foundation
import Inference
import RelayRouting
import Routing

/// One fault's row, in this table and in DoneWhen.swift's: the fault, the settings that govern
/// it, what is timed, and per run whether the answer came on-device and after how long.
struct FaultRow {
    let fault: String
    /// The limit that fires, or the settings the row is about.
    let limit: String
    /// What the time is measured from (DoneWhen's rows: from → to).
    let from: String
    /// What the figure should show (DoneWhen's rows).
    var goal = ""
    var total = Samples()
    /// Of `total`: from the fault's start to the fallback's start (detection).
    var detect = Samples()
    var onDevice = 0
    var continued = 0
    var runs = 0
    var limitMs: Double = 0
    /// Who ended the Homebase's answer ("the Homebase's host_error", "the guest's stall rung"), counted.
    var endedBy: [String: Int] = [:]

    mutating func ended(_ by: String) { endedBy[by, default: 0] += 1 }
}

enum Faults {
    static func request(_ tokens: Int, _ i: Int) -> ChatRequest {
        ChatRequest(model: "default", messages: [.init(role: .user, content: "Fault run \(i): say something.")], maxTokens: tokens)
    }

    static func run(_ o: Options, world: World, host first: Child, guest: BenchGuest,
                    restartHost: () throws -> Child,
                    reopen: () async throws -> BenchGuest) async throws -> (rows: [FaultRow], guest: BenchGuest) {
        var rows: [FaultRow] = []
        let procs = world.procs
        let runner = guest.runner()
        var host = first

        // Frozen, with the guest's default rungs (accept 10 s): the relay's liveness probe
        // finds it silent (ping, no pong) and says peer-gone; the relay closes it, so it
        // reconnects once thawed. Measured from the send: the probe waits until the Homebase
        // has been quiet for probe-after, then probe-timeout.
        var frozen = FaultRow(fault: "Homebase frozen (SIGSTOP), advert fresh → relay's liveness probe, peer-gone silent",
                              limit: "probe-after 500 ms + probe-timeout 750 ms (accept rung 10 s)", from: "send")
        guest.use(WatchdogLimits())
        for i in 0..<o.faultRuns {
            let connected = connections(procs)
            procs.freeze(host)
            try await stopped(host)  // frozen before the request, not while it arrives
            let t = try await guest.ask(runner, request(16, i))
            procs.thaw(host)
            record(&frozen, t, from: t.start)
            try await settle(procs, after: connected)
        }
        rows.append(frozen)

        // Killed mid-answer (SIGKILL right after its first text reached the guest), default
        // rungs (stall 30 s): the relay sees the socket close and says peer-gone; the answer is
        // continued on-device from the text shown. Measured from the kill; restarted after each.
        var killed = FaultRow(fault: "Homebase killed mid-answer (SIGKILL after first text) → relay's peer-gone",
                              limit: "none (stall rung 30 s)", from: "kill")
        for i in 0..<o.faultRuns {
            let killedAt = Stamps()
            let victim = host
            let t = try await guest.ask(runner, request(400, i)) {
                procs.kill(victim)
                killedAt.add(.now)
            }
            record(&killed, t, from: killedAt.all.first ?? t.start)
            host = try restartHost()
        }
        rows.append(killed)
        let live = host

        // Stalled: frozen right after its first text reached the guest. The stall rung fires and
        // the answer is continued on-device from the text already shown.
        var stall = FaultRow(fault: "Homebase stalls mid-stream (SIGSTOP after first text) → stall rung",
                             limit: "stall \(o.stallMs) ms", from: "last Homebase text")
        stall.limitMs = Double(o.stallMs)
        guest.use(WatchdogLimits(stall: .milliseconds(o.stallMs)))
        for i in 0..<o.faultRuns {
            let frozeAt = Stamps()
            let connected = connections(procs)
            let t = try await guest.ask(runner, request(400, i)) {
                procs.freeze(live)
                frozeAt.add(.now)
            }
            procs.thaw(live)
            // The last Homebase text: everything that arrived before the fallback began.
            let fellBackAt = t.fallbackAt ?? t.end
            let last = t.texts.last(where: { text in text < fellBackAt }) ?? frozeAt.all.first ?? t.start
            record(&stall, t, from: last)
            try await settle(procs, after: connected)
        }
        rows.append(stall)

        // Gone: the process is killed; its advert is still fresh, so the router picks it and the
        // relay answers not-here at once.
        procs.kill(live)
        try await Task.sleep(for: .milliseconds(300))
        guest.use(WatchdogLimits())
        var gone = FaultRow(fault: "Homebase gone (SIGKILL) → not-here", limit: "none (relay answers)", from: "send")
        for i in 0..<o.faultRuns {
            record(&gone, try await guest.ask(runner, request(16, i)), from: nil)
        }
        rows.append(gone)

        // Stale: silent past the advert window: the router goes on-device with no network wait.
        try await Task.sleep(for: .milliseconds(o.advertWindowMs + 100))
        let stale = guest.router(limits: FreshnessLimits(ownAdvertMaxAgeMs: Int64(o.advertWindowMs)))
        var staleRow = FaultRow(fault: "advert older than the window → on-device directly",
                                limit: "advert window \(o.advertWindowMs) ms", from: "send")
        let staleRunner = guest.runner(stale)
        for i in 0..<o.faultRuns {
            record(&staleRow, try await guest.ask(staleRunner, request(16, i)), from: nil)
        }
        rows.append(staleRow)

        let (cold, current) = try await coldRow(o, guest: guest, reopen: reopen)
        rows.append(cold)
        return (rows, current)
    }

    /// A guest that has just started (as `guest chat` does: the warm floor begins the engine's
    /// start while the link opens), the Homebase gone: no on-device engine runs before each run
    /// (the last guest stopped its own), so the engine's whole start is in the figure.
    static func coldRow(_ o: Options, guest: BenchGuest,
                        reopen: () async throws -> BenchGuest) async throws -> (row: FaultRow, guest: BenchGuest) {
        var cold = FaultRow(fault: "Homebase gone, guest just started (on-device engine cold)", limit: "none", from: "send")
        var current = guest
        for i in 0..<o.coldRuns {
            await current.stop()
            current = try await reopen()
            record(&cold, try await current.ask(current.runner(), request(16, i)), from: nil)
        }
        return (cold, current)
    }

    /// `--only cold`: the Homebase killed (its advert still fresh: the relay answers not-here),
    /// then the cold row alone.
    static func coldOnly(_ o: Options, procs: Processes, host: Child, guest: BenchGuest,
                         reopen: () async throws -> BenchGuest) async throws -> (row: FaultRow, guest: BenchGuest) {
        procs.kill(host)
        try await Task.sleep(for: .milliseconds(300))
        return try await coldRow(o, guest: guest, reopen: reopen)
    }

    /// Waits until the kernel shows `c` stopped (state T in /proc/PID/stat): SIGSTOP returns
    /// before every thread has stopped, and a request racing it may still be accepted.
    static func stopped(_ c: Child) async throws {
        for _ in 0..<1000 {
            if let stat = try? String(contentsOfFile: "/proc/\(c.pid)/stat", encoding: .utf8),
               let close = stat.lastIndex(of: ")"), stat[stat.index(close, offsetBy: 2)] == "T" { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw BenchError("\(c.name) did not stop")
    }

    /// How many times the Homebase has connected to the relay (its log).
    static func connections(_ procs: Processes) -> Int {
        procs.read("homebase.log").components(separatedBy: "connected to the relay").count
    }

    /// After a thaw: the relay may have closed the frozen Homebase (its probe), which then
    /// reconnects; wait for that (up to 10 s, not an error if it never comes), then a moment
    /// for it to drain the stale request and the cancel.
    static func settle(_ procs: Processes, after connected: Int) async throws {
        for _ in 0..<100 where connections(procs) <= connected { try await Task.sleep(for: .milliseconds(100)) }
        try await Task.sleep(for: .milliseconds(500))
    }

    /// `from`: when the fault began for the reader (nil: the call).
    static func record(_ row: inout FaultRow, _ t: Timed, from: ContinuousClock.Instant?) {
        row.runs += 1
        guard t.brain == .onDevice else { return }
        row.onDevice += 1
        if t.metadata.seamOffset != nil { row.continued += 1 }
        let origin = from ?? t.start
        // The on-device brain's first text: after the fallback began, or the first text when
        // the router chose on-device itself.
        guard let first = t.fallbackAt == nil ? t.texts.first : t.fallbackText else { return }
        row.total.add(ms(first - origin))
        if let f = t.fallbackAt { row.detect.add(ms(f - origin)) }
    }

    static func print(_ rows: [FaultRow], cold: Double) {
        Swift.print("""
            ### Time to the first fallback token

            The guest's on-device llama-server (the same tiny model) was started once before these runs \
            (cold start: \(fmt(cold, 0)) ms), except in the cold row. "detect" is the part before the \
            fallback began (the watchdog rung, the relay's peer-gone or not-here); the rest is the on-device engine's first token.

            | fault | limit | measured from | answered on-device | first fallback token p50 ms | p99 ms | detect p50 ms | over the limit p50 ms |
            |---|---|---|---:|---:|---:|---:|---:|
            """)
        for r in rows {
            let over = r.limitMs > 0 ? fmt(r.total.p50 - r.limitMs, 1) : "-"
            let cont = r.continued > 0 ? " (\(r.continued) continued)" : ""
            Swift.print("| \(r.fault) | \(r.limit) | \(r.from) | \(r.onDevice) of \(r.runs)\(cont) | \(fmt(r.total.p50, 1)) "
                        + "| \(fmt(r.total.p99, 1)) | \(r.detect.count > 0 ? fmt(r.detect.p50, 1) : "-") | \(over) |")
        }
        Swift.print("")
    }
}
