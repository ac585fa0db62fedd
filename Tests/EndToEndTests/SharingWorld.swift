import Foundation
import Glibc
import Wire

/// One relay, optionally the tiny engine, one Homebase data directory, guests by name.
struct SharingWorld {
    let bin: Binaries
    let procs: Processes
    let relay: String
    let enginePort: Int
    let linkFlags = ["--relay-wait", "3s", "--connect-timeout", "2s"]
    let chatFlags = ["--relay-wait", "3s", "--connect-timeout", "2s", "--accept-timeout", "5s",
                     "--first-output-timeout", "30s", "--stall-timeout", "10s"]

    init(engine: Bool) throws {
        bin = try Binaries.locate()
        procs = try Processes()
        let relayPort = try Processes.freePort()
        enginePort = try Processes.freePort()
        relay = "ws://127.0.0.1:\(relayPort)"
        try procs.start(bin.path("homebase-relay"),
                        ["serve", "--listen", "127.0.0.1:\(relayPort)", "--data-dir", procs.work + "/relay", "--metrics-listen", "off"], log: "relay.log")
        if engine {
            try procs.start(bin.engine, ["--model", bin.model, "--host", "127.0.0.1", "--port", "\(enginePort)",
                                         "--alias", "tiny"], log: "engine.log")
        }
        try procs.waitUntil(30, "the relay") { Processes.canConnect(relayPort) }
        if engine { try procs.waitUntil(60, "llama-server") { Processes.canConnect(enginePort) } }
    }

    var hostDir: String { procs.work + "/host" }

    /// `homebase init`: the host's device key.
    func initHost(_ name: String) throws -> String {
        let out = try homebase(["init", "--name", name])
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("device key: ") }) else {
            throw Failure("no device key in: \(out)")
        }
        return String(line.dropFirst("device key: ".count))
    }

    /// Runs `homebase ARGS`; throws on a non-zero exit with its stderr.
    @discardableResult
    func homebase(_ args: [String]) throws -> String {
        let r = try procs.capture(bin.path("homebase"), ["--data-dir", hostDir] + args)
        guard r.status == 0 else { throw Failure("homebase \(args.joined(separator: " ")) exited \(r.status): \(r.err)") }
        return r.out
    }

    /// `homebase init` as `name`, `runtime add` of `runtime` when given (retried while the engine
    /// still loads its model: its probe fails until it answers), then `homebase run`: the host's
    /// device key.
    func startHost(_ name: String, runtime: String?) throws -> String {
        let key = try initHost(name)
        if let runtime {
            try procs.waitUntil(60, "homebase runtime add \(runtime) to succeed") { (try? homebase(["runtime", "add", runtime])) != nil }
        }
        try startHost()
        return key
    }

    /// This world's engine, as `runtime add` takes it.
    var engineURL: String { "http://127.0.0.1:\(enginePort)" }

    func startHost() throws {
        try procs.start(bin.path("homebase"), ["--data-dir", hostDir, "run", "--relay", relay, "--reload-interval", "200ms",
                                               "--advert-pulse", "2s"], log: "homebase.log")
        try procs.waitUntil(30, "the Homebase to connect") { procs.read("homebase.log").contains("connected to the relay") }
    }

    /// `homebase share ARGS`: the invite (its first line).
    func share(_ args: [String]) throws -> String {
        let out = try homebase(["share", "--relay", relay] + args)
        return String(out.prefix { $0 != "\n" })
    }

    /// Points guest `name`'s router at the Homebase `hostKey` as a joined user does
    /// (`model.source external`, `ollama.host`, `ollama.model tiny`).
    func useHomebase(_ name: String, _ hostKey: String) throws {
        for (setting, value) in [("model.source", "external"), ("ollama.host", hostKey), ("ollama.model", "tiny")] {
            let r = try guest(name, ["settings", "set", setting, value])
            guard r.status == 0 else { throw Failure("guest settings set \(setting) exited \(r.status): \(r.err)") }
        }
    }

    /// `guest ARGS` in the data directory `work/NAME`, with the engine flags.
    func guest(_ name: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try procs.capture(bin.path("guest"), args + ["--data-dir", procs.work + "/" + name, "--llama-server", bin.engine,
                                                     "--model-path", bin.model])
    }
}

/// Tampering with an invite's text the way an attacker could: change the secret, fix the checksum
/// (Wire's own InviteCode re-encodes it, so the checksum is right and only the join proof can tell).
enum InviteText {
    static func withSecretByteFlipped(_ code: String) throws -> String {
        let decoded = try InviteCode.decode(code)
        var invite = decoded.invite
        var secret = invite.inviteSecret.bytes
        secret[0] ^= 0x01
        invite.inviteSecret = Secret32(unchecked: secret)
        return try InviteCode.encode(invite, hostRecord: decoded.hostRecord)
    }
}
