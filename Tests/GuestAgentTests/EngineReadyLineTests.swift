import Foundation
import Glibc
@testable import OnDeviceEngine
import Testing

/// llama-server's ready line (`ReadyLine`): the REAL llama-server on the tiny model, its start
/// seen the moment the model is loaded rather than at the next /health poll.
@Suite(.serialized) struct EngineReadyLineTests {
    /// Polls 30 s apart (the first right after the spawn, before the server listens): only the
    /// ready line can end this start within the 20 s deadline.
    @Test func theReadyLineEndsTheStartNotAPollTick() async throws {
        let tiny = try Engine.tiny()
        let events = Lines()
        let sup = supervisor(readyLine: true, events: events)
        do {
            _ = try await sup.endpoint(for: tiny)
            let healthy = try #require(events.all.first { $0.contains("healthy") }, "\(events.all)")
            #expect(healthy.contains("seen by its ready line"), "\(healthy)")
            await sup.stop()
        } catch {
            await sup.stop()
            throw error
        }
    }

    /// `readyLine` off: the same server is found by a /health poll (a server without the protocol).
    @Test func withoutTheReadyLineAPollFindsIt() async throws {
        let tiny = try Engine.tiny()
        let events = Lines()
        var c = Engine.supervisor().configuration
        c.readyLine = false
        c.events = { events.append($0) }
        let sup = LlamaServerSupervisor(c)
        do {
            _ = try await sup.endpoint(for: tiny)
            let healthy = try #require(events.all.first { $0.contains("healthy") }, "\(events.all)")
            #expect(healthy.contains("seen by a /health poll"), "\(healthy)")
            await sup.stop()
        } catch {
            await sup.stop()
            throw error
        }
    }

    /// The engine's stdin is the guest's pipe: closed (the guest gone, or a stop), the server exits
    /// by itself, even with no signal sent.
    @Test func theServerExitsWhenItsInputCloses() async throws {
        let tiny = try Engine.tiny()
        let c = supervisor(readyLine: true, events: Lines()).configuration
        let running = try await LlamaServerSupervisor.start(tiny, c)
        let line = try #require(running.child.readyLine)
        line.closeInput()
        var exited = false
        for _ in 0..<500 where !exited {
            exited = running.child.exitStatus() != nil
            if !exited { try await Task.sleep(for: .milliseconds(20)) }
        }
        if !exited { await running.child.terminate(grace: .milliseconds(500)) }
        #expect(exited, "llama-server still ran 10 s after its stdin closed")
    }

    /// A stop's SIGTERM comes with the end of the engine's stdin: a router child exits only at that
    /// EOF, so without it every stop waited out the grace and ended in SIGKILL.
    @Test func aStopEndsTheServerWithoutSIGKILL() async throws {
        let tiny = try Engine.tiny()
        var c = supervisor(readyLine: true, events: Lines()).configuration
        c.stopGrace = .seconds(10)
        let running = try await LlamaServerSupervisor.start(tiny, c)
        await running.child.terminate(grace: c.stopGrace)
        let status = try #require(running.child.exitStatus())
        #expect(ChildProcess.describe(status) != "signal 9", "SIGKILL after the grace: \(ChildProcess.describe(status))")
    }

    /// The engine's environment gets OMP_WAIT_POLICY=passive (its OpenMP threads sleep, not spin),
    /// unless ours sets it.
    /// `Configuration.environment` reaches the engine (none by default: see its doc).
    @Test func theConfiguredEnvironmentReachesTheEngine() async throws {
        let tiny = try Engine.tiny()
        try #require(ProcessInfo.processInfo.environment["OMP_WAIT_POLICY"] == nil, "the test's own environment sets it")
        #expect(Engine.supervisor().configuration.environment.isEmpty, "no environment is added by default")
        var c = supervisor(readyLine: true, events: Lines()).configuration
        c.environment = ["OMP_WAIT_POLICY": "passive"]
        let running = try await LlamaServerSupervisor.start(tiny, c)
        let environ = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(running.child.pid)/environ"))) ?? Data()
        await running.child.terminate(grace: .seconds(2))
        let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(variables.contains("OMP_WAIT_POLICY=passive"), "\(variables.filter { $0.hasPrefix("OMP") })")
    }

    @Test func readyLineParsing() {
        func ready(_ s: String) -> Bool { ReadyLine.isReadyLine(Array(s.utf8)) }
        #expect(ready(#"cmd_child_to_router:state:{"state":"ready","payload":{"model":"tiny"}}"#))
        #expect(!ready(#"cmd_child_to_router:state:{"state":"loading","payload":{"progress":0.5}}"#))
        #expect(!ready(#"cmd_child_to_router:state:not json"#))
        #expect(!ready(#"main: {"state":"ready"}"#), "only the protocol's prefix counts")
    }

    func supervisor(readyLine: Bool, events: Lines) -> LlamaServerSupervisor {
        var c = Engine.supervisor(deadline: .seconds(20)).configuration
        c.healthPollFirst = .seconds(30)
        c.healthPoll = .seconds(30)
        c.readyLine = readyLine
        c.events = { events.append($0) }
        return LlamaServerSupervisor(c)
    }
}

/// Lines noted from any thread (the supervisor's events).
final class Lines: @unchecked Sendable {  // `lock` guards `lines`
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ s: String) { lock.withLock { lines.append(s) } }
    var all: [String] { lock.withLock { lines } }
}
