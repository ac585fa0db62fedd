import Foundation
import Glibc

/// The pairing tests' stage: a relay (and optionally llama-server) as real processes, a
/// Homebase data directory and any number of guest data directories, with helpers that run the
/// CLIs and give back status, stdout and stderr.
final class PairScene: @unchecked Sendable {  // used from one test task only
    let bin: Binaries
    let procs: Processes
    let relayPort: Int
    /// The relay's loopback `/metrics` listener.
    let metricsPort: Int
    var relay: String { "ws://127.0.0.1:\(relayPort)" }
    private(set) var enginePort: Int?
    private(set) var host: Process?
    /// Added to every program's environment (e.g. HF_ENDPOINT).
    var extraEnvironment: [String: String] = [:]
    var environment: [String: String] { procs.environment.merging(extraEnvironment) { $1 } }

    init(engine: Bool) throws {
        bin = try engine ? Binaries.locate() : Self.programsOnly()
        procs = try Processes()
        relayPort = try Processes.freePort()
        metricsPort = try Processes.freePort()
        try procs.start(bin.path("homebase-relay"),
                        ["serve", "--listen", "127.0.0.1:\(relayPort)", "--data-dir", procs.work + "/relay",
                         "--metrics-listen", "127.0.0.1:\(metricsPort)"], log: "relay.log")
        let port = relayPort
        try procs.waitUntil(30, "the relay") { Processes.canConnect(port) }
        if engine {
            let port = try Processes.freePort()
            try procs.start(bin.engine, ["--model", bin.model, "--host", "127.0.0.1", "--port", "\(port)", "--alias", "tiny"],
                            log: "engine.log")
            try procs.waitUntil(60, "llama-server") { Processes.canConnect(port) }
            enginePort = port
        }
    }

    func stop() { procs.stopAll() }

    /// The three programs, without requiring the engine (for scenes that never answer a chat).
    static func programsOnly() throws -> Binaries {
        try Binaries.locate(needs: ["homebase-relay", "homebase", "guest"], engine: false, hint: "`swift build --build-tests` first")
    }

    struct Run {
        let status: Int32
        let out: String
        let err: String
    }

    /// Runs a program to its end, stdout and stderr captured apart.
    func run(_ program: String, _ args: [String]) throws -> Run {
        let r = try procs.capture(program, args, environment: environment)
        return Run(status: r.status, out: r.out, err: r.err)
    }

    /// Starts a program whose stdin stays open (an interactive `guest chat`); output to `work/<log>`.
    func startInteractive(_ program: String, _ args: [String], log: String) throws -> (Process, FileHandle) {
        try procs.startInteractive(program, args, log: log, environment: environment)
    }

    var hostArgs: [String] { ["--data-dir", procs.work + "/host"] }

    /// `homebase ARGS`, which must succeed.
    @discardableResult
    func homebase(_ args: [String]) throws -> String {
        let r = try run(bin.path("homebase"), hostArgs + args)
        guard r.status == 0 else { throw Failure("homebase \(args.joined(separator: " ")) exited \(r.status): \(r.err)") }
        return r.out
    }

    func guestArgs(_ name: String) -> [String] {
        ["--data-dir", procs.work + "/" + name, "--llama-server", bin.engine, "--model-path", bin.model]
    }

    /// `guest ARGS` on the guest data directory `name`, whatever its status.
    func guestRun(_ name: String, _ args: [String]) throws -> Run { try run(bin.path("guest"), args + guestArgs(name)) }

    /// `guest ARGS` on `name`, which must succeed.
    @discardableResult
    func guest(_ name: String, _ args: [String]) throws -> String {
        let r = try guestRun(name, args)
        guard r.status == 0 else { throw Failure("guest \(args.first ?? "") on \(name) exited \(r.status): \(r.err)\(r.out)") }
        return r.out
    }

    /// `homebase init`; returns (account key, the Homebase's record).
    func initHost() throws -> (account: String, record: String) {
        let out = try homebase(["init", "--name", "e2e-homebase"])
        return (try field(out, "account key: "), try field(out, "device record: "))
    }

    /// Stores the engine as the Homebase's runtime (retried while llama-server loads its model).
    func addRuntime() throws {
        guard let port = enginePort else { throw Failure("no engine in this scene") }
        try procs.waitUntil(60, "homebase runtime add to succeed") {
            (try? run(bin.path("homebase"), hostArgs + ["runtime", "add", "http://127.0.0.1:\(port)"]))?.status == 0
        }
    }

    /// Starts `homebase run` (fast pulses) and waits until it is connected.
    func startHost(log: String = "homebase.log") throws {
        let before = procs.read(log).components(separatedBy: "connected to the relay").count
        host = try procs.start(bin.path("homebase"), hostArgs + ["run", "--relay", relay, "--advert-pulse", "2s",
                                                                "--reload-interval", "100ms"], log: log)
        try procs.waitUntil(30, "the Homebase to connect") {
            procs.read(log).components(separatedBy: "connected to the relay").count > before
        }
    }

    func stopHost() {
        if let host { procs.kill(host) }
        host = nil
    }

    /// The relay's counter of mail frames received from devices.
    func mailFramesIn() throws -> Int {
        let r = try run("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(metricsPort)/metrics"])
        guard r.status == 0 else { throw Failure("metrics: curl exited \(r.status)") }
        let prefix = "homebase_relay_frames_total{direction=\"in\",class=\"mail\"} "
        guard let line = r.out.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(line.dropFirst(prefix.count)) ?? 0
    }

    func field(_ text: String, _ prefix: String) throws -> String {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            throw Failure("no \(prefix) in \(text)")
        }
        return String(line.dropFirst(prefix.count))
    }

    /// The code line `homebase pair` printed.
    func code(_ out: String) throws -> String {
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("hbpair1-") }) else {
            throw Failure("no code in: \(out)")
        }
        return String(line)
    }
}

/// Bytes handed over from a reader thread.
final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var finished = false
    func set(_ d: Data) { lock.withLock { data = d; finished = true } }
    var done: Bool { lock.withLock { finished } }
    var value: Data { lock.withLock { data } }
}
