import Foundation
import Testing

/// A public relay in `allowlist` mode of ACCOUNT keys (`--allow-accounts`), real processes, no
/// hand edit per device: the Homebase gets in with its own proof, a laptop pairs (the pair-code
/// token, then the proof the welcome carried) and a friend joins (the invite's token), and both
/// are answered through the relay; a stranger is refused and counted; a removed laptop's proof
/// is refused.
@Suite(.serialized) struct AccountAdmissionEndToEndTests {
    @Test func noHandEditsForPairingAndJoiningStrangerAndRemovedDeviceRefused() throws {
        let s = try AdmissionScene(engine: false)
        defer { s.procs.stopAll() }
        try s.startClosedRelayAndHost()
        let laptopKey = try s.pairLaptop()
        try s.joinFriend()
        #expect(s.procs.read("homebase.log").contains("connected to the relay"))

        // A second workstation joins the account: the proof its welcome carried lets it in too.
        let ordersBefore = s.tokenOrders
        let code = try s.code(try s.homebase(["pair", "--relay", s.relay, "--no-wait"]))
        try s.waitForOrders(ordersBefore + 1)
        let second = ["--data-dir", s.procs.work + "/second", "--config", s.procs.work + "/second.conf"]
        let sibling = try s.procs.capture(s.bin.path("homebase"), second + ["pair", code, "--name", "second", "--wait", "30s"])
        #expect(sibling.status == 0, "\(sibling.err)\n\(s.procs.read("relay.log"))")
        try s.procs.start(s.bin.path("homebase"), second + ["run", "--reload-interval", "100ms", "--default-runtime", "http://127.0.0.1:1"],
                          log: "second.log")
        try s.procs.waitUntil(30, "the second Homebase to connect") { s.procs.read("second.log").contains("connected to the relay") }

        // A stranger (throwaway keys, no proof, no token): refused, counted.
        let refusedBefore = try s.notAdmitted()
        let probe = try s.procs.capture(s.bin.path("homebase-relay"), ["probe", s.relay, "--timeout", "3000"])
        #expect(probe.status != 0, "\(probe.out)")
        #expect(try s.notAdmitted() > refusedBefore)

        // The laptop is removed: the Homebase revokes it at the relay; its proof no longer opens it.
        _ = try s.homebase(["devices", "remove", laptopKey])
        try s.procs.waitUntil(30, "the revocation at the relay") { s.procs.read("relay.log").contains("account order kind=1") }
        let afterRemoval = try s.notAdmitted()
        _ = try s.guest("laptop", ["status"] + AdmissionScene.link)
        try s.procs.waitUntil(30, "the removed laptop to be refused") { try s.notAdmitted() > afterRemoval }
        #expect(s.procs.read("relay.log").contains("reason=not-admitted"))
    }

    @Test func thePairedLaptopAndTheJoinedFriendAreAnsweredThroughTheClosedRelay() throws {
        let s = try AdmissionScene(engine: true)
        defer { s.procs.stopAll() }
        try s.startClosedRelayAndHost()
        _ = try s.pairLaptop()
        for (k, v) in [("model.source", "external"), ("ollama.model", "tiny")] { _ = try s.guest("laptop", ["settings", "set", k, v]) }
        let mine = try s.guest("laptop", ["chat"] + AdmissionScene.chat + ["hello through a closed relay"])
        #expect(try AnswerLine(mine.out).brain == "homebase", "\(mine.out)\n\(s.procs.read("laptop/guest.log"))")
        try s.joinFriend()
        for (k, v) in [("model.source", "external"), ("ollama.host", s.hostKey), ("ollama.model", "tiny")] {
            _ = try s.guest("friend", ["settings", "set", k, v])
        }
        let theirs = try s.guest("friend", ["chat"] + AdmissionScene.chat + ["hello from a friend"])
        #expect(try AnswerLine(theirs.out).brain == "joined-homebase", "\(theirs.out)\n\(s.procs.read("friend/guest.log"))")
    }
}

/// One relay started after `homebase init` (its flags name the account), the tiny engine, one
/// Homebase, guests by name.
final class AdmissionScene: @unchecked Sendable {  // used from one test task only
    static let chat = ["--max-tokens", "8", "--relay-wait", "5s", "--connect-timeout", "3s", "--accept-timeout", "5s",
                       "--first-output-timeout", "30s", "--stall-timeout", "10s"]
    static let link = ["--relay-wait", "3s", "--connect-timeout", "2s"]
    let bin: Binaries
    let procs: Processes
    let relayPort: Int
    /// The relay's loopback `/metrics` listener (never on the relay's own port).
    let metricsPort: Int
    let enginePort: Int
    var relay: String { "ws://127.0.0.1:\(relayPort)" }
    var hostDir: String { procs.work + "/host" }

    let engine: Bool
    private(set) var hostKey = ""

    init(engine: Bool) throws {
        self.engine = engine
        bin = try engine ? Binaries.locate()
            : Binaries.locate(needs: ["homebase-relay", "homebase", "guest"], engine: false, hint: "`swift build --build-tests` first")
        procs = try Processes()
        relayPort = try Processes.freePort()
        metricsPort = try Processes.freePort()
        enginePort = try Processes.freePort()
        if engine {
            try procs.start(bin.engine, ["--model", bin.model, "--host", "127.0.0.1", "--port", "\(enginePort)", "--alias", "tiny"],
                            log: "engine.log")
        }
    }

    /// `homebase init`, a relay admitting only that account, the engine stored, `homebase run`.
    func startClosedRelayAndHost() throws {
        let initOut = try homebase(["init", "--name", "public-homebase"])
        hostKey = try field(initOut, "device key: ")
        try startRelay(["--admission", "allowlist", "--allow-accounts", try field(initOut, "account key: ")])
        if engine {
            try procs.waitUntil(60, "homebase runtime add to succeed") {
                (try? homebase(["runtime", "add", "http://127.0.0.1:\(enginePort)"])) != nil
            }
        }
        try startHost()
    }

    /// `homebase pair` then `guest pair CODE` on `laptop`: the laptop's device key.
    func pairLaptop() throws -> String {
        let code = try code(try homebase(["pair", "--relay", relay, "--no-wait"]))
        try waitForOrders(1) // the Homebase told the relay to admit the code's token once
        let paired = try guest("laptop", ["pair", code, "--name", "laptop", "--wait", "30s"])
        guard paired.status == 0 else { throw Failure("guest pair: \(paired.err)\n\(procs.read("relay.log"))") }
        return try field(paired.out, "new device \"laptop\" ")
    }

    /// `homebase share` then `guest join` on `friend` (the invite's token admits it).
    func joinFriend() throws {
        let invite = String(try homebase(["share", "--relay", relay, "--models", "tiny"]).prefix { $0 != "\n" })
        try waitForOrders(2)
        let joined = try guest("friend", ["join", invite, "--as", "alice", "--wait", "30s"] + Self.link)
        guard joined.status == 0, joined.out.contains("joined: models") else {
            throw Failure("guest join: \(joined.out)\(joined.err)\n\(procs.read("relay.log"))")
        }
    }

    func startRelay(_ extra: [String]) throws {
        try procs.start(bin.path("homebase-relay"), ["serve", "--listen", "127.0.0.1:\(relayPort)", "--data-dir",
                                                     procs.work + "/relay", "--log-level", "info",
                                                     "--metrics-listen", "127.0.0.1:\(metricsPort)"] + extra, log: "relay.log")
        let port = relayPort
        try procs.waitUntil(30, "the relay") { Processes.canConnect(port) }
    }

    func startHost() throws {
        try procs.start(bin.path("homebase"), ["--data-dir", hostDir, "run", "--relay", relay, "--reload-interval", "100ms",
                                               "--advert-pulse", "2s"], log: "homebase.log")
        try procs.waitUntil(30, "the Homebase to connect") { procs.read("homebase.log").contains("connected to the relay") }
    }

    /// Admit-token orders the relay took so far (each new one, or one renewed, is logged).
    var tokenOrders: Int { procs.read("relay.log").components(separatedBy: "account order kind=2").count - 1 }

    /// Waits until the relay took `n` admit-token orders (the agent sends them on its reload tick).
    func waitForOrders(_ n: Int) throws {
        try procs.waitUntil(30, "\(n) admit-token order(s) at the relay") { tokenOrders >= n }
    }

    @discardableResult
    func homebase(_ args: [String]) throws -> String {
        let r = try procs.capture(bin.path("homebase"), ["--data-dir", hostDir] + args)
        guard r.status == 0 else { throw Failure("homebase \(args.joined(separator: " ")) exited \(r.status): \(r.err)") }
        return r.out
    }

    func guest(_ name: String, _ args: [String]) throws -> (status: Int32, out: String, err: String) {
        try procs.capture(bin.path("guest"), args + ["--data-dir", procs.work + "/" + name, "--llama-server", bin.engine,
                                                     "--model-path", bin.model])
    }

    /// The relay's count of `not-admitted` refusals (/metrics).
    func notAdmitted() throws -> Int {
        let r = try procs.capture("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(metricsPort)/metrics"])
        let prefix = "homebase_relay_auth_failures_total{reason=\"not-admitted\"} "
        guard let line = r.out.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(line.dropFirst(prefix.count)) ?? 0
    }

    func field(_ text: String, _ prefix: String) throws -> String {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { throw Failure("no \(prefix) in \(text)") }
        return String(line.dropFirst(prefix.count))
    }

    func code(_ out: String) throws -> String {
        guard let line = out.split(separator: "\n").first(where: { $0.hasPrefix("hbpair1-") }) else { throw Failure("no code in: \(out)") }
        return String(line)
    }
}
