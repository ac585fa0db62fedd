import Foundation
import Glibc

/// A relay, a Homebase and its guests on loopback, set up the way a user does it (`homebase
/// init`, `runtime add`, `guest init --account`, `devices add`, `relay set --homebase`, the
/// routing settings), each a real process. Every wait of the programs is set by their flags.
final class Loopback: @unchecked Sendable {  // used from one test task only
    /// What the Homebase serves: the real llama-server on the tiny model, or the stand-in
    /// engine of `peers/standin_engine.py` (mode `stall` or `error`) for an engine fault.
    /// `visionCapture`: llama-server behind peers/vision_capture_engine.py (it claims vision and
    /// records the images it is sent, `work/captured.json`); `optionsCapture`: the same peer also
    /// keeping every chat request's body (`GET /recorded`) and answering it itself.
    enum Engine: Equatable { case llama, standIn(mode: String), visionCapture, optionsCapture }

    let bin: Binaries
    let procs: Processes
    let relayPort: Int
    /// The relay's loopback `/metrics` listener.
    let metricsPort: Int
    /// Where devices dial: the relay, or the black-hole proxy in front of it (`viaProxy`).
    let publicPort: Int
    var relay: String { "ws://127.0.0.1:\(publicPort)" }
    /// Extra `homebase-relay serve` flags, every start.
    let relayArgs: [String]
    private(set) var proxy: Process?
    /// The model the guests ask for: `tiny` (llama-server's alias) or `standin`.
    let model: String
    let engineURL: String
    private(set) var relayProcess: Process?
    private(set) var host: Process?
    private(set) var account = ""
    private(set) var hostRecord = ""

    /// `viaProxy`: every device reaches the relay through `peers/blackhole_proxy.py`, which
    /// `blackHole()` tells to stop forwarding the connections open at that moment.
    /// `engineArgs`: extra llama-server flags (a larger `-c` for a client's long prompt).
    init(engine: Engine, relayArgs: [String] = [], viaProxy: Bool = false, engineArgs: [String] = []) throws {
        let bin = try Binaries.locate(), procs = try Processes()
        self.bin = bin
        self.procs = procs
        self.relayArgs = relayArgs
        relayPort = try Processes.freePort()
        metricsPort = try Processes.freePort()
        publicPort = viaProxy ? try Processes.freePort() : relayPort
        let enginePort = try Processes.freePort()
        engineURL = "http://127.0.0.1:\(enginePort)"
        switch engine {
        case .llama:
            model = "tiny"
            // --jinja: the model's own chat template, which renders tools (plain chat is unchanged).
            try procs.start(bin.engine, ["--model", bin.model, "--host", "127.0.0.1", "--port", "\(enginePort)",
                                         "--alias", "tiny", "--jinja"] + engineArgs, log: "engine.log")
        case .visionCapture, .optionsCapture:
            model = "tiny"
            let inner = try Processes.freePort()
            try procs.start(bin.engine, ["--model", bin.model, "--host", "127.0.0.1", "--port", "\(inner)",
                                         "--alias", "tiny", "--jinja"], log: "engine.log")
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/peers/vision_capture_engine.py"
            try procs.start(Processes.python, [script, "--port", "\(enginePort)", "--target", "\(inner)",
                                               "--capture", procs.work + "/captured.json"]
                                               + (engine == .optionsCapture ? ["--record"] : []), log: "capture.log")
            try procs.waitUntil(60, "llama-server behind the capture peer") { Processes.canConnect(inner) }
        case .standIn(let mode):
            model = "standin"
            try Self.startStandIn(procs, port: enginePort, mode: mode, log: "engine.log")
        }
        try startRelay()
        if viaProxy {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/peers/blackhole_proxy.py"
            proxy = try procs.start(Processes.python, [script, "--port", "\(publicPort)", "--target", "\(relayPort)",
                                                       "--trigger", procs.work + "/black-hole"], log: "proxy.log")
            try procs.waitUntil(30, "the black-hole proxy") { Processes.canConnect(publicPort) }
        }
        try procs.waitUntil(60, "the Homebase's engine") { Processes.canConnect(enginePort) }
        let initOut = try homebase(["init", "--name", "fault-homebase"])
        account = try Self.field(initOut, "account key: ")
        hostRecord = try Self.field(initOut, "device record: ")
        // llama-server accepts connections while it still loads its model (/health 503), and
        // `runtime add` refuses an engine that is not ready: retry until it is.
        try procs.waitUntil(60, "homebase runtime add to succeed") {
            ((try? procs.run(bin.path("homebase"), hostArgs + ["runtime", "add", engineURL]))?.status ?? 1) == 0
        }
    }

    /// The scene most cases start from: this loopback with its Homebase running (`homebaseArgs`)
    /// and one guest, "laptop", holding the Homebase's advert. A failed step stops what started.
    static func laptop(engine: Engine, relayArgs: [String] = [], viaProxy: Bool = false, engineArgs: [String] = [],
                       homebaseArgs: [String] = []) throws -> (Loopback, Guest) {
        let lb = try Loopback(engine: engine, relayArgs: relayArgs, viaProxy: viaProxy, engineArgs: engineArgs)
        do {
            let guest = try lb.addGuest("laptop")
            try lb.startHomebase(homebaseArgs)
            try guest.waitForAdvert()
            return (lb, guest)
        } catch {
            lb.stopAll()
            throw error
        }
    }

    deinit { stopAll() }

    /// Kills every process (a stopped Homebase is continued first, so nothing is left frozen).
    func stopAll() {
        if let host, host.isRunning { Glibc.kill(host.processIdentifier, SIGCONT) }
        procs.stopAll()
    }

    static func startStandIn(_ procs: Processes, port: Int, mode: String, log: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/peers/standin_engine.py"
        try procs.start(Processes.python, [script, "--port", "\(port)", "--mode", mode], log: log)
    }

    // MARK: the relay

    func startRelay() throws {
        relayProcess = try procs.start(bin.path("homebase-relay"),
                                       ["serve", "--listen", "127.0.0.1:\(relayPort)", "--data-dir", procs.work + "/relay",
                                        "--metrics-listen", "127.0.0.1:\(metricsPort)"]
                                        + (publicPort == relayPort ? [] : ["--origin", relay]) + relayArgs,
                                       log: "relay.log")
        try procs.waitUntil(30, "the relay") { Processes.canConnect(relayPort) }
    }

    /// The proxy stops forwarding every connection open now (no FIN, no RST: a network gone
    /// silent), or only the newest (`newest`: the device that connected last); connections made
    /// later pass. Only with `viaProxy`.
    func blackHole(newest: Bool = false) throws {
        guard proxy != nil else { throw Failure("blackHole() needs Loopback(viaProxy: true)") }
        let before = procs.read("proxy.log").components(separatedBy: "black-holed").count
        guard FileManager.default.createFile(atPath: procs.work + "/black-hole", contents: Data((newest ? "newest" : "").utf8)) else {
            throw Failure("could not write the black-hole trigger")
        }
        try procs.waitUntil(10, "the proxy to black-hole") { procs.read("proxy.log").components(separatedBy: "black-holed").count > before }
    }

    /// SIGKILL: a crash is the harder restart (nothing is flushed on the way out).
    func killRelay() {
        if let r = relayProcess { procs.kill(r) }
        relayProcess = nil
    }

    /// The relay's `/metrics` value of `sample` (name with labels), nil when absent.
    func metric(_ sample: String) -> Int? {
        guard let text = Processes.httpGet(port: metricsPort, path: "/metrics") else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix(sample + " ") }
            .flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    // MARK: the Homebase

    var hostArgs: [String] { ["--data-dir", procs.work + "/host"] }

    func homebase(_ args: [String]) throws -> String {
        let r = try procs.run(bin.path("homebase"), hostArgs + args)
        guard r.status == 0 else { throw Failure("homebase \(args.joined(separator: " ")) exited \(r.status): \(r.out)") }
        return r.out
    }

    /// `homebase run` with adverts at start and on change only (the pulse is an hour), and
    /// CLI changes picked up within 200 ms; waits for its advert to reach `devices` devices.
    func startHomebase(_ extra: [String] = [], devices: Int = 1) throws {
        let before = procs.read("homebase.log").components(separatedBy: "to \(devices) device(s)").count
        host = try procs.start(bin.path("homebase"), hostArgs + ["run", "--relay", relay, "--advert-pulse", "1h",
                                                                 "--reload-interval", "200ms"] + extra, log: "homebase.log")
        try procs.waitUntil(30, "the Homebase's advert") {
            procs.read("homebase.log").components(separatedBy: "to \(devices) device(s)").count > before
        }
    }

    func killHomebase() {
        guard let host else { return }
        Glibc.kill(host.processIdentifier, SIGCONT)
        procs.kill(host)
        self.host = nil
    }

    func signalHomebase(_ signal: Int32) {
        if let host { Glibc.kill(host.processIdentifier, signal) }
    }

    // MARK: guests

    /// A new device of the account: `guest init --account`, `homebase devices add` (the
    /// record exchange), `relay set --homebase`, then routed to the own Homebase's `model`.
    func addGuest(_ name: String) throws -> Guest {
        let g = Guest(loopback: self, directory: procs.work + "/" + name)
        let record = String(try g.run(["init", "--name", name, "--account", account]).prefix { $0 != "\n" })
        _ = try homebase(["devices", "add", record])
        _ = try g.run(["relay", "set", relay, "--homebase", hostRecord])
        _ = try g.run(["settings", "set", "model.source", "external"])
        _ = try g.run(["settings", "set", "ollama.model", model])
        return g
    }

    static func field(_ text: String, _ prefix: String) throws -> String {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            throw Failure("no \(prefix) in \(text)")
        }
        return String(line.dropFirst(prefix.count))
    }
}
