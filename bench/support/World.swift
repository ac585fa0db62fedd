// The real programs on loopback: a relay process, a llama-server on the tiny model, and a
// Homebase set up through its own CLI (`init`, `runtime add`, `devices add`) then `run`.
import Foundation
import Inference
import TestSupport

public struct World: Sendable {
    public let procs: Processes
    public let bin: Binaries

    public init(procs: Processes, bin: Binaries) { self.procs = procs; self.bin = bin }

    /// `homebase-relay serve` on a free loopback port; its ws:// URL.
    public func startRelay(_ extra: [String] = [], name: String = "relay") throws -> (url: String, child: Child) {
        let port = try Processes.freePort()
        let child = try procs.start(bin.path("homebase-relay"),
                                    ["serve", "--listen", "127.0.0.1:\(port)", "--data-dir", procs.work + "/" + name,
                                     "--metrics-listen", "off"] + extra,
                                    log: name + ".log")
        try procs.waitUntil(30, "the relay") { Processes.canConnect(port) }
        return ("ws://127.0.0.1:\(port)", child)
    }

    /// The TEST black-hole proxy (Tests/EndToEndTests/peers/blackhole_proxy.py) on `port` in
    /// front of `target`: writing `newest` to `trigger` makes it stop forwarding the connection
    /// it accepted last, closing nothing (a network gone silent).
    public func startBlackHoleProxy(port: Int, target: Int, trigger: String, log: String = "proxy.log") throws -> Child {
        let child = try procs.start(anyPython, [testsFile("EndToEndTests/peers/blackhole_proxy.py"), "--port", "\(port)",
                                                "--target", "\(target)", "--trigger", trigger], log: log)
        try procs.waitUntil(30, "the black-hole proxy") { Processes.canConnect(port) }
        return child
    }

    /// A relay (`name`) that devices reach only through a black-hole proxy: the URL they dial
    /// (the proxy's, which the relay signs as its origin) and the proxy's `trigger` file.
    public func startRelayBehindBlackHole(name: String, trigger: String, proxyLog: String) throws -> String {
        let proxyPort = try Processes.freePort()
        let url = "ws://127.0.0.1:\(proxyPort)"
        let relay = try startRelay(["--origin", url], name: name)
        guard let relayPort = Int(relay.url.split(separator: ":").last ?? "") else { throw BenchError("relay url \(relay.url)") }
        _ = try startBlackHoleProxy(port: proxyPort, target: relayPort, trigger: trigger, log: proxyLog)
        return url
    }

    /// The TEST capture peer (Tests/EndToEndTests/peers/vision_capture_engine.py) on a free port
    /// in front of the engine on `target`: it claims vision and answers an image request itself
    /// (a short stream, after hashing the image); everything else it forwards. Its URL.
    public func startCapturePeer(target: Int) throws -> (url: String, child: Child) {
        let port = try Processes.freePort()
        let child = try procs.start(anyPython, [testsFile("EndToEndTests/peers/vision_capture_engine.py"), "--port", "\(port)",
                                                "--target", "\(target)", "--capture", procs.work + "/captured.json"],
                                    log: "capture.log")
        try procs.waitUntil(30, "the capture peer") { Processes.canConnect(port) }
        return ("http://127.0.0.1:\(port)", child)
    }

    /// llama-server on the tiny model (alias `tiny`) with `slots` parallel slots sharing
    /// `context` tokens; returns once `/health` answers 200. `jinja`: the model's own chat
    /// template, which renders tools (plain chat is unchanged).
    public func startEngine(slots: Int, context: Int, jinja: Bool = false, extra: [String] = [],
                            log: String = "engine.log") async throws -> (url: String, child: Child) {
        let port = try Processes.freePort()
        let child = try procs.start(bin.engine, ["--model", bin.model, "--host", "127.0.0.1", "--port", "\(port)",
                                                 "--alias", "tiny", "--parallel", "\(slots)", "--ctx-size", "\(context)"]
                                                + (jinja ? ["--jinja"] : []) + extra,
                                    log: log)
        let url = "http://127.0.0.1:\(port)"
        let quick = HTTPTimeouts(connect: .seconds(1), firstByte: .seconds(5), idle: .seconds(5))
        for _ in 0..<1200 {
            guard procs.isRunning(child) else { throw BenchError("llama-server exited early; see \(procs.work)/\(log)") }
            if let r = try? await HTTPStreamClient().send(HTTPStreamRequest(url: url + "/health", timeouts: quick)) {
                _ = try? await r.collect()
                if r.status == 200 { return (url, child) }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchError("llama-server never answered /health; see \(procs.work)/\(log)")
    }
}

/// A Homebase's data directory, set up through the `homebase` CLI as a user would.
public struct HomebaseSetup: Sendable {
    public let dataDir: String
    public let accountKey: String
    /// Hex of the signed device record (`guest relay set --homebase` takes it).
    public let recordHex: String
    let world: World

    var cli: [String] { ["--data-dir", dataDir] }

    /// `homebase init` then `runtime add ENGINE` (retried while llama-server is still loading).
    public static func create(_ world: World, engineURL: String, name: String = "bench-homebase",
                              dataDir: String? = nil) throws -> HomebaseSetup {
        let dir = dataDir ?? world.procs.work + "/host"
        let out = try world.procs.must(world.bin.path("homebase"), ["--data-dir", dir, "init", "--name", name])
        func field(_ prefix: String) throws -> String {
            guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
                throw BenchError("homebase init printed no \(prefix)")
            }
            return String(line.dropFirst(prefix.count))
        }
        let setup = HomebaseSetup(dataDir: dir, accountKey: try field("account key: "), recordHex: try field("device record: "),
                                  world: world)
        try world.procs.waitUntil(60, "homebase runtime add to pass its probe") {
            ((try? world.procs.run(world.bin.path("homebase"), setup.cli + ["runtime", "add", engineURL]))?.status ?? 1) == 0
        }
        return setup
    }

    /// `create`, then one guest set up at `guestDir` for this account on `relay`, added to the devices.
    public static func create(_ world: World, engineURL: String, name: String, dataDir: String,
                              guestDir: String, relay: String) throws -> HomebaseSetup {
        let host = try create(world, engineURL: engineURL, name: name, dataDir: dataDir)
        try host.addDevice(try BenchGuest.setUp(world, dataDir: guestDir, account: host.accountKey, relay: relay,
                                                hostRecord: host.recordHex))
        return host
    }

    /// `homebase devices add RECORD`.
    public func addDevice(_ recordHex: String) throws {
        _ = try world.procs.must(world.bin.path("homebase"), cli + ["devices", "add", recordHex])
    }

    /// `homebase run --relay URL FLAGS...`; returns once it has sent an advert (`minDevices`
    /// recipients at least).
    public func run(relay: String, _ flags: [String], minDevices: Int = 1, log: String = "homebase.log") throws -> Child {
        let child = try world.procs.start(world.bin.path("homebase"), cli + ["run", "--relay", relay] + flags, log: log)
        try world.procs.waitUntil(60, "the Homebase's first advert") {
            world.procs.read(log).split(separator: "\n").contains { line in
                guard line.contains("advert "), let r = line.range(of: " to ") else { return false }
                return Int(line[r.upperBound...].prefix { $0.isNumber }).map { $0 >= minDevices } ?? false
            }
        }
        return child
    }
}
