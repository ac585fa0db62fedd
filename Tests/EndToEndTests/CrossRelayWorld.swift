import Foundation
import Glibc
import Testing

/// Two relays as real processes: A, where the friend's Homebase (the tiny llama-server) lives
/// and its invites point, and B, the guest's own account relay. Guests by name.
final class CrossRelayWorld {
    let bin: Binaries
    let procs: Processes
    let portA: Int, portB: Int, enginePort: Int
    /// Relay A's loopback `/metrics` listener.
    let metricsA: Int
    /// Relay A's self-signed certificate and its pin (SHA-256, hex with colons), when A is wss://.
    let tlsA: (cert: String, key: String, pin: String)?
    var relayA: String { (tlsA == nil ? "ws" : "wss") + "://127.0.0.1:\(portA)" }
    var relayB: String { "ws://127.0.0.1:\(portB)" }
    private var processA: Process?
    private var startsOfA = 0
    let linkFlags = ["--relay-wait", "3s", "--connect-timeout", "2s"]
    let chatFlags = ["--relay-wait", "3s", "--connect-timeout", "2s", "--accept-timeout", "5s",
                     "--first-output-timeout", "30s", "--stall-timeout", "10s"]

    init(tls: Bool = false) throws {
        bin = try Binaries.locate()
        procs = try Processes()
        tlsA = tls ? try Self.selfSigned(in: procs) : nil
        portA = try Processes.freePort()
        portB = try Processes.freePort()
        metricsA = try Processes.freePort()
        enginePort = try Processes.freePort()
        try procs.start(bin.path("homebase-relay"),
                        ["serve", "--listen", "127.0.0.1:\(portB)", "--data-dir", procs.work + "/relay-b", "--metrics-listen", "off"], log: "relay-b.log")
        try procs.start(bin.engine, ["--model", bin.model, "--host", "127.0.0.1", "--port", "\(enginePort)",
                                     "--alias", "tiny"], log: "engine.log")
        try startRelayA()
        try procs.waitUntil(30, "relay B") { Processes.canConnect(portB) }
        try procs.waitUntil(60, "llama-server") { Processes.canConnect(enginePort) }
    }

    /// A self-signed certificate for 127.0.0.1 (the openssl CLI) and its SHA-256 pin.
    static func selfSigned(in procs: Processes) throws -> (cert: String, key: String, pin: String) {
        let cert = procs.work + "/relay-a.crt", key = procs.work + "/relay-a.key"
        let made = try procs.capture("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                                                          "-nodes", "-keyout", key, "-out", cert, "-days", "2",
                                                          "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"])
        guard made.status == 0 else { throw Failure("openssl req failed: \(made.err)") }
        let fp = try procs.capture("/usr/bin/openssl", ["x509", "-in", cert, "-noout", "-fingerprint", "-sha256"])
        guard let pin = fp.out.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines), fp.status == 0 else {
            throw Failure("openssl x509 -fingerprint failed: \(fp.err)")
        }
        return (cert, key, pin)
    }

    /// Starts relay A (again: same port, same mailbox).
    func startRelayA() throws {
        startsOfA += 1
        processA = try procs.start(bin.path("homebase-relay"),
                                   ["serve", "--listen", "127.0.0.1:\(portA)", "--data-dir", procs.work + "/relay-a",
                                    "--metrics-listen", "127.0.0.1:\(metricsA)"]
                                    + (tlsA.map { ["--tls-cert", $0.cert, "--tls-key", $0.key] } ?? []),
                                   log: "relay-a-\(startsOfA).log")
        try procs.waitUntil(30, "relay A") { Processes.canConnect(portA) }
    }

    /// SIGKILL: relay A is gone without a word.
    func killRelayA() {
        if let p = processA { procs.kill(p) }
        processA = nil
    }

    /// Devices authenticated at relay A now (its `/metrics`).
    var authenticatedAtA: Int? {
        Processes.httpGet(port: metricsA, path: "/metrics")?.split(separator: "\n")
            .first { $0.hasPrefix("homebase_relay_connections{state=\"authenticated\"} ") }
            .flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    // MARK: the friend's Homebase, on relay A

    var hostDir: String { procs.work + "/host" }

    @discardableResult
    func homebase(_ args: [String]) throws -> String {
        let r = try procs.capture(bin.path("homebase"), ["--data-dir", hostDir] + args)
        guard r.status == 0 else { throw Failure("homebase \(args.joined(separator: " ")) exited \(r.status): \(r.err)") }
        return r.out
    }

    /// `homebase init`, its runtime (the tiny engine), `homebase run` on relay A: the host key.
    func startHost(_ name: String) throws -> String {
        let out = try homebase(["init", "--name", name])
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("device key: ") }) else {
            throw Failure("no device key in: \(out)")
        }
        try procs.waitUntil(60, "homebase runtime add to succeed") {
            (try? homebase(["runtime", "add", "http://127.0.0.1:\(enginePort)"])) != nil
        }
        try procs.start(bin.path("homebase"), ["--data-dir", hostDir, "run", "--relay", relayA, "--reload-interval", "200ms",
                                               "--advert-pulse", "2s"] + (tlsA.map { ["--pin", $0.pin] } ?? []),
                        log: "homebase.log")
        try procs.waitUntil(30, "the Homebase to connect") { procs.read("homebase.log").contains("connected to the relay") }
        return String(line.dropFirst("device key: ".count))
    }

    /// A world whose friend's Homebase ("friend-workstation") runs on relay A: the world and the
    /// Homebase's key. A failed start stops what started.
    static func withFriendsHomebase() throws -> (CrossRelayWorld, hostKey: String) {
        let w = try CrossRelayWorld()
        do {
            return (w, try w.startHost("friend-workstation"))
        } catch {
            w.procs.stopAll()
            throw error
        }
    }

    /// `homebase share --relay A ARGS`: the invite.
    func share(_ args: [String]) throws -> String {
        String(try homebase(["share", "--relay", relayA] + args).prefix { $0 != "\n" })
    }

    // MARK: guests

    func guest(_ name: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try procs.capture(bin.path("guest"), args + ["--data-dir", procs.work + "/" + name, "--llama-server", bin.engine,
                                                     "--model-path", bin.model])
    }

    /// `guest init` of `name`, its own account on relay B (no Homebase of its own there).
    func initGuestOnB(_ name: String) throws {
        for args in [["init", "--name", name], ["relay", "set", relayB]] {
            let r = try guest(name, args)
            guard r.status == 0 else { throw Failure("guest \(args.joined(separator: " ")): \(r.err)") }
        }
    }

    /// `name` joins a fresh invite to `tiny` as "alice" and selects the friend's Homebase (`host`).
    func joinAndSelect(_ name: String, host: String) throws {
        let joined = try guest(name, ["join", try share(["--models", "tiny"]), "--as", "alice", "--wait", "30s"] + linkFlags)
        #expect(joined.status == 0 && joined.out.contains("joined: models tiny"), "\(joined.err)")
        try select(name, host: host)
    }

    /// Selects the joined Homebase's `tiny` as the guest's model.
    func select(_ name: String, host: String) throws {
        for (setting, value) in [("model.source", "external"), ("ollama.host", host), ("ollama.model", "tiny")] {
            let r = try guest(name, ["settings", "set", setting, value])
            guard r.status == 0 else { throw Failure("settings set \(setting): \(r.err)") }
        }
    }

    func chat(_ name: String, _ prompt: String) throws -> AnswerLine {
        let r = try guest(name, ["chat", "--max-tokens", "8"] + chatFlags + [prompt])
        return try AnswerLine(r.out)
    }

    func log(_ name: String) -> String { procs.read(name + "/guest.log") }
}
