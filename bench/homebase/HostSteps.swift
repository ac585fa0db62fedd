// The host's steps before the engine (the agent's `traceTimings` lines), per relayed answer:
// each step's time after the opened request reached the agent, and the way in before it
// (the guest's send → received: sealing, the relay, opening).
import BenchSupport
import HomebaseAgent

struct HostSteps {
    /// Per step: µs after `received` (the way in: µs before it).
    var after: [TimingTrace.Step: Samples] = [:]
    var wayIn = Samples()
    /// The way in split where the host's link read the frame (`link-read`): before it the seal,
    /// the guest's link and the relay; after it the Courier (open, replay check, decode, hand-offs).
    var toLinkRead = Samples(), linkReadToReceived = Samples()
    /// The answer's tail: the host read the engine's end (`engine-done`) → `done` opened at the
    /// guest (the last batch, the padding, the final chunk, `done`'s seal, the disk writes before
    /// it, the relay, the guest's open), µs; independent of how fast the engine ran.
    var tail = Samples()

    /// `lines` and `sends` in request order (one relayed request at a time); the first `skip`
    /// of both are the warm-up.
    init(lines: [String], sends: [UInt64], dones: [UInt64] = [], skip: Int) {
        let traces = lines.compactMap(TimingTrace.parse)
        for (i, t) in traces.enumerated() where i >= skip {
            guard let r = t[.received] else { continue }
            if let e = t[.engineDone], i < dones.count, dones[i] > 0 { tail.add(Double(Int64(dones[i]) - Int64(e)) / 1000) }
            if i < sends.count { wayIn.add(Double(Int64(r) - Int64(sends[i])) / 1000) }
            if let l = t[.linkRead] {
                if i < sends.count { toLinkRead.add(Double(Int64(l) - Int64(sends[i])) / 1000) }
                linkReadToReceived.add(Double(Int64(r) - Int64(l)) / 1000)
            }
            for s in TimingTrace.Step.allCases where s != .received && s != .linkRead && s != .engineDone {
                if let at = t[s] { after[s, default: Samples()].add(Double(Int64(at) - Int64(r)) / 1000) }
            }
        }
    }

    static func print(_ rows: [(delayMs: Int, steps: HostSteps)]) {
        Swift.print("""
            ### Inside the host before the engine

            The agent's timing trace (`traceTimings`, `homebase run --trace-timings`), one relayed answer \
            per line; µs on the uptime clock the guest shares in this process. "send → received" is the \
            guest's `sendRequest` call to the opened request reaching the agent (seal, relay, open); every \
            other step is µs after "received", so the steps read in the order they happen.

            | batch-delay | step | p50 µs | p99 µs |
            |---|---|---:|---:|
            """)
        for (delay, s) in rows {
            Swift.print("| \(delay) ms | send → received | \(fmt(s.wayIn.p50, 0)) | \(fmt(s.wayIn.p99, 0)) |")
            if s.toLinkRead.count > 0 {
                Swift.print("| \(delay) ms | send → host link read (seal, guest link, relay) | \(fmt(s.toLinkRead.p50, 0)) | \(fmt(s.toLinkRead.p99, 0)) |")
                Swift.print("| \(delay) ms | host link read → received (Courier: open, replay check, decode, 2 task hand-offs) | \(fmt(s.linkReadToReceived.p50, 0)) | \(fmt(s.linkReadToReceived.p99, 0)) |")
            }
            if s.tail.count > 0 {
                Swift.print("| \(delay) ms | the tail: engine done at the host → `done` opened at the guest | \(fmt(s.tail.p50, 0)) | \(fmt(s.tail.p99, 0)) |")
            }
            let order = TimingTrace.Step.allCases.filter { $0 != .received && $0 != .linkRead && $0 != .engineDone }
                .sorted { (s.after[$0]?.p50 ?? .infinity) < (s.after[$1]?.p50 ?? .infinity) }
            for step in order {
                let v = s.after[step] ?? Samples()
                Swift.print("| \(delay) ms | received → \(step.name) | \(fmt(v.p50, 0)) | \(fmt(v.p99, 0)) |")
            }
        }
        Swift.print("")
    }
}
