import Foundation
import Glibc
import Testing

/// A guest killed outright (SIGKILL, a crash) takes its on-device llama-server with it: the
/// engine is forked with a parent-death signal from a thread that lives as long as the guest,
/// so it neither outlives the guest nor dies under a guest that is idle. Real processes.
@Suite(.serialized) struct EngineLeashEndToEndTests {
    @Test func theEngineLivesThroughIdleAndDiesWithAKilledGuest() throws {
        let bin = try Binaries.locate()
        let procs = try Processes()
        defer { procs.stopAll() }
        let port = try Processes.freePort()
        #expect(try procs.run(bin.path("guest"), ["init", "--name", "leash", "--data-dir", procs.work + "/g"]).status == 0)
        let serve = try procs.start(bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)", "--data-dir", procs.work + "/g",
                                                       "--llama-server", bin.engine, "--model-path", bin.model], log: "serve.log")
        try procs.waitUntil(60, "guest serve") { Processes.canConnect(port) }
        #expect(try ask(procs, port) == "200")
        let engine = try #require(Self.children(of: serve.processIdentifier).first, "serve started no engine: \(procs.read("serve.log"))")
        // Longer than an idle pool thread lives: a signal tied to such a thread would have fired.
        Thread.sleep(forTimeInterval: 8)
        #expect(Self.alive(engine), "the engine died under a live, idle guest")
        #expect(try ask(procs, port) == "200")
        #expect(Self.children(of: serve.processIdentifier).contains(engine), "the guest restarted its engine")
        Glibc.kill(serve.processIdentifier, SIGKILL)
        try procs.waitUntil(20, "the engine to end with its guest") { !Self.alive(engine) }
    }

    func ask(_ procs: Processes, _ port: Int) throws -> String {
        let body = #"{"model":"default","max_tokens":4,"messages":[{"role":"user","content":"hi"}]}"#
        return try procs.capture("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Content-Type: application/json",
                                                   "-d", body, "http://127.0.0.1:\(port)/v1/chat/completions"]).out
    }

    /// Pids whose parent is `pid` (from /proc).
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { t in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// Running and not a zombie.
    static func alive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return !stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }
}
