// One batching policy: a Homebase agent started with it, N paired rounds, the chunk probe.
import BenchSupport
import Foundation
import HomebaseAgent
import Inference
import Synchronization

struct Policy {
    let delayMs: Int
    var direct = Samples(), relayed = Samples(), ratio = Samples()
    var directTTFT = Samples(), relayedTTFT = Samples(), accept = Samples()
    /// Per round: relayed request-to-done minus direct, ms.
    var addedDone = Samples()
    /// Per round: relayed TTFT minus direct, ms.
    var addedTTFT = Samples()
    var waitsUs = Samples()
    /// Per answer: the first chunk's wait (engine text → hand-off, µs), and send → the relay's
    /// confirmation of the request at the guest (ms).
    var firstWaitUs = Samples(), confirmed = Samples()
    /// Per answer, the added TTFT split at the host (ms): send → the engine's first text at the
    /// host minus the direct TTFT of the same pair (the way in and the host's work before the
    /// engine), and the first chunk's hand-off → its arrival at the guest (the way out).
    var wayIn = Samples(), wayOut = Samples()
    var chunks = 0
    var tokens = 0
    /// The host's steps before the engine (its timing trace).
    var steps = HostSteps(lines: [], sends: [], dones: [], skip: 0)
    /// CPU of each process over the relayed answers and, apart, over the direct ones (HopCPU.swift).
    var cpu: HopCPU

    /// BENCH_VERBOSE=1: one line per round on stderr.
    static let verbose = ProcessInfo.processInfo.environment["BENCH_VERBOSE"] == "1"

    static func measure(delayMs: Int, rounds: Int, tokens: Int, relayURL: String, hostDataDir: String,
                        engineURL: String, guest: GuestDevice, pids: HopCPU.Pids) async throws -> Policy {
        var p = Policy(delayMs: delayMs, cpu: HopCPU(pids))
        let probe = Probe()
        let logged = Probe.Lines()
        var c = try HomebaseAgent.Configuration(relayURL: relayURL)
        c.batchDelay = .milliseconds(delayMs)
        c.chunkProbe = { _, ns in probe.add(ns, at: DispatchTime.now().uptimeNanoseconds) }
        c.log = { logged.add($0) }
        c.traceTimings = true
        let agent = try HomebaseAgent(configuration: c, files: HostFiles(dataDir: hostDataDir))
        agent.start()
        // Serving once the runtime is verified and the first advert is out.
        let deadline = ContinuousClock.now + .seconds(60)
        while !logged.contains("advert ") {
            guard ContinuousClock.now < deadline else { throw BenchError("the Homebase agent sent no advert in 60 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let client = OpenAIChatClient(.init(baseURL: engineURL))
        var sends: [UInt64] = [], dones: [UInt64] = []
        for round in -1..<rounds {  // one warm-up pair
            var d: (ttft: Double, total: Double)?, r: Answer?
            var before = 0
            let counted = round >= 0
            func straight() async throws {
                if counted { p.cpu.direct.start() }
                let switches = ClientStream.contextSwitches().0
                d = try await direct(client, tokens)
                if counted {
                    p.cpu.direct.stop(); p.cpu.directTokens += tokens
                    p.cpu.directSwitches += ClientStream.contextSwitches().0 - switches; p.cpu.directAnswers += 1
                }
            }
            func relayed() async throws {
                before = probe.all.count
                if counted { p.cpu.relayed.start() }
                let switches = ClientStream.contextSwitches().0
                r = try await guest.ask(tokens: tokens)
                if counted {
                    p.cpu.relayed.stop(); p.cpu.relayedTokens += r?.completion ?? 0
                    p.cpu.relayedSwitches += ClientStream.contextSwitches().0 - switches; p.cpu.relayedAnswers += 1
                }
            }
            try await alternating(round, straight, relayed)
            if let r { sends.append(r.startNs); dones.append(r.doneNs) }
            if round < 0 { probe.reset(); continue }
            guard let d, let r else { continue }
            let dr = Double(tokens) / (d.total / 1000), rr = Double(r.completion) / (r.total / 1000)
            p.direct.add(dr); p.relayed.add(rr); p.ratio.add(rr / dr)
            p.directTTFT.add(d.ttft); p.relayedTTFT.add(r.ttft); p.accept.add(r.accept)
            p.addedDone.add(r.total - d.total)
            p.confirmed.add(r.confirmed)
            p.addedTTFT.add(r.ttft - d.ttft)
            if let f = probe.sample(before) {
                p.firstWaitUs.add(Double(f.waited) / 1000)
                p.wayIn.add(Double(Int64(f.at &- f.waited) - Int64(r.startNs)) / 1e6 - d.ttft)
                p.wayOut.add(Double(Int64(r.firstNs) - Int64(f.at)) / 1e6)
            }
            p.tokens += r.completion
            if verbose {
                FileHandle.standardError.write(Data("round \(round): direct \(Int(dr)) tok/s (\(Int(d.total)) ms), relayed \(Int(rr)) tok/s (\(Int(r.total)) ms, accept \(fmt(r.accept, 2)) ms, first chunk \(fmt(r.ttft, 2)) ms)\n".utf8))
            }
        }
        let waits = probe.all
        p.chunks = waits.count
        p.waitsUs = Samples(waits.map { Double($0) / 1000 })
        await agent.stop()
        p.steps = HostSteps(lines: logged.all.filter { $0.hasPrefix("timing: ") }, sends: sends, dones: dones, skip: 1)
        return p
    }

    /// The engine alone: request sent to `.done`, as the Homebase's own engine client sees it.
    static func direct(_ client: OpenAIChatClient, _ tokens: Int) async throws -> (ttft: Double, total: Double) {
        let a = try await DirectAnswer.stream(client, prompt: "Go", maxTokens: tokens, temperature: 0)
        guard a.usage?.completionTokens == tokens else { throw BenchError("the engine answered \(a.usage?.completionTokens ?? 0) of \(tokens) tokens") }
        return (ms((a.first ?? a.end) - a.start), ms(a.end - a.start))
    }

    static func print(_ rows: [Policy], rounds: Int, tokens: Int) {
        Swift.print("""
            ### Homebase: serving through the relay

            \(rounds) paired rounds per policy after one warm-up pair, alternating which goes first: one \
            \(tokens)-token answer on the engine alone (OpenAIChatClient, request to `.done`) and one through \
            the Homebase and the relay (the guest device seals and sends the request; time to `done` opened). \
            tokens/s = completion tokens / (request to done); "ratio" is relayed over direct per pair. \
            Chunk wait: engine text arriving → its sealed chunk handed to the link (the agent's chunk probe); \
            "first" is the first chunk of each answer (it waited for `accept` before pipelining). \
            "request confirmed": send → the relay's confirmation of the request at the guest. The added \
            TTFT split at the host: "in" = send → the engine's first text at the host, minus the pair's direct \
            TTFT (the request's way in and the host's work before the engine); "out" = the first chunk's \
            hand-off to the link → its arrival at the guest.

            | batch-delay | engine alone tokens/s p50 | through the Homebase tokens/s p50 | ratio p50 (min) | TTFT direct / relayed p50 ms | added TTFT p50 ms | relayed: send → request confirmed / accept p50 ms | added time to done p50 ms | chunks per answer | chunk wait p50 / p99 µs | first chunk wait p50 / max µs | added TTFT split in / out p50 ms |
            |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
            """)
        for p in rows {
            let perAnswer = Double(p.chunks) / Double(max(1, p.direct.count))
            Swift.print("| \(p.delayMs) ms | \(fmt(p.direct.p50, 0)) | \(fmt(p.relayed.p50, 0)) | \(fmt(100 * p.ratio.p50, 1))% "
                        + "(\(fmt(100 * p.ratio.min, 1))%) | \(fmt(p.directTTFT.p50, 2)) / \(fmt(p.relayedTTFT.p50, 2)) | \(fmt(p.addedTTFT.p50, 2)) "
                        + "| \(fmt(p.confirmed.p50, 2)) / \(fmt(p.accept.p50, 2)) | \(fmt(p.addedDone.p50, 1)) "
                        + "| \(fmt(perAnswer, 1)) for \(tokens) tokens | \(fmt(p.waitsUs.p50, 0)) / \(fmt(p.waitsUs.p99, 0)) "
                        + "| \(fmt(p.firstWaitUs.p50, 0)) / \(fmt(p.firstWaitUs.max, 0)) | \(fmt(p.wayIn.p50, 2)) / \(fmt(p.wayOut.p50, 2)) |")
        }
        Swift.print("")
    }
}

/// The chunk probe's samples (nanoseconds waited, and when: the uptime clock), from the agent's tasks.
final class Probe: Sendable {
    private let waits = Mutex<[(waited: UInt64, at: UInt64)]>([])
    func add(_ ns: UInt64, at: UInt64) { waits.withLock { $0.append((ns, at)) } }
    func reset() { waits.withLock { $0 = [] } }
    var all: [UInt64] { waits.withLock { $0.map(\.waited) } }
    func sample(_ i: Int) -> (waited: UInt64, at: UInt64)? { waits.withLock { i < $0.count ? $0[i] : nil } }

    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ l: String) { lines.withLock { $0.append(l) } }
        func contains(_ s: String) -> Bool { lines.withLock { $0.contains { $0.contains(s) } } }
        var all: [String] { lines.withLock { $0 } }
    }
}
