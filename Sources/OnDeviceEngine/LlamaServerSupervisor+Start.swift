import Foundation
import Inference

// Starting one server: spawn on a free loopback port, then wait for /health.
extension LlamaServerSupervisor {
    static func start(_ model: GGUFTarget, _ c: Configuration) async throws -> Running {
        let binary = try c.locator.locate()
        let port = try freeLoopbackPort()
        // `--jinja`: the model's own chat template renders tools and parses the calls (the default in
        // newer llama.cpp; accepted by every version we install).
        var args = ["--model", model.path, "--host", "127.0.0.1", "--port", "\(port)", "--alias", model.alias, "--jinja"]
        if let p = model.projector { args += ["--mmproj", p] }  // the model can see images
        if let t = c.threads { args += ["--threads", "\(t)"] }
        if let n = c.contextSize { args += ["--ctx-size", "\(n)"] }
        let ready = c.readyLine ? try ReadyLine() : nil
        let ours = ProcessInfo.processInfo.environment
        var added = c.environment.filter { ours[$0.key] == nil }
        if ready != nil { added.merge(ReadyLine.environment) { $1 } }
        let child = try ChildProcess.spawnLeashed(binary, args + c.extraArguments, logPath: c.logPath,
                                                  environment: added, readyLine: ready)
        let endpoint = Endpoint(url: "http://127.0.0.1:\(port)", alias: model.alias, modelPath: model.path,
                                projector: model.projector, pid: child.pid)
        let seenBy: String
        do {
            seenBy = try await waitHealthy(endpoint.url, child, c, ready: ready)
        } catch {
            await child.terminate(grace: c.stopGrace)
            throw error
        }
        return Running(child: child, endpoint: endpoint, startedAt: .now, seenBy: seenBy)
    }

    /// Polls `/health` until 200 (503 while the model loads), the child exits, or the deadline.
    /// Between polls it waits on the server's ready line (`ReadyLine`) when there is one: the
    /// poll right after it confirms (and opens the connection the first request reuses).
    /// Returns how it was seen: "its ready line" or "a /health poll".
    static func waitHealthy(_ url: String, _ child: ChildProcess, _ c: Configuration, ready: ReadyLine? = nil) async throws -> String {
        let http = HTTPStreamClient()
        let quick = HTTPTimeouts(connect: .seconds(1), firstByte: .seconds(2), idle: .seconds(2))
        let start = ContinuousClock.now
        // A small model is healthy within tens of ms: poll often at first, then every healthPoll.
        var pause = min(c.healthPollFirst, c.healthPoll)
        while ContinuousClock.now - start < c.healthDeadline {
            if let status = child.exitStatus() { throw EngineError.exited(how: ChildProcess.describe(status)) }
            let said = ready?.isReady == true
            if let r = try? await http.send(HTTPStreamRequest(url: url + "/health", timeouts: quick)) {
                _ = try? await r.collect(limit: 1 << 16)
                if r.status == 200 { return said ? "its ready line" : "a /health poll" }
            }
            if let ready {
                // The line came while that poll was out (it answered 503 just before): poll
                // again at once, not after a whole pause (`wait` returns at once only for news).
                if !said, ready.isReady { try Task.checkCancellation(); continue }
                await ready.wait(atMost: pause)
            } else {
                try await Task.sleep(for: pause)
            }
            try Task.checkCancellation()
            pause = min(pause * 2, c.healthPoll)
        }
        if let status = child.exitStatus() { throw EngineError.exited(how: ChildProcess.describe(status)) }
        let ms = c.healthDeadline.components
        throw EngineError.notHealthy(deadlineMs: ms.seconds * 1000 + ms.attoseconds / 1_000_000_000_000_000)
    }
}
