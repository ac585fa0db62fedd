import Foundation
import Pairing
import Testing

/// A Homebase configured with other nodes of its relay's cluster (`relay-alternates`) names them
/// in its pairing codes and invites; the paired guest keeps them in relay.json, a friend's guest
/// beside the joined host (docs/CLUSTER.md "Devices").
@Suite(.serialized) struct PairAlternatesEndToEndTests {
    /// The Homebase's config file: the scene's relay and `alternates` (nodes nothing listens on).
    func configure(_ s: PairScene, alternates: [String]) throws {
        let config = s.procs.work + "/config/homebase"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "relay = \(s.relay)\nrelay-alternates = \(alternates.joined(separator: ", "))\n"
            .write(toFile: config + "/homebase.conf", atomically: true, encoding: .utf8)
    }

    /// Inits and starts the scene's Homebase with `count` alternates in its config: nodes nothing
    /// listens on (a guest stores them; it dials the code's relay first). Returns them.
    func startHostWithAlternates(_ s: PairScene, count: Int = 2) throws -> [String] {
        _ = try s.initHost()
        let hosts = ["localhost", "127.0.0.2"]
        let nodes = try (0..<count).map { "ws://\(hosts[$0 % 2]):\(try Processes.freePort())/v1/connect" }
        try configure(s, alternates: nodes)
        try s.startHost()
        return nodes
    }

    @Test func aCodeFromAHomebaseWithAlternatesLeavesThemInTheGuestsRelayFile() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        let nodes = try startHostWithAlternates(s)

        let code = try s.code(try s.homebase(["pair", "--no-wait"]))
        #expect(try PairingCode(parsing: code).alternates == nodes)
        let joined = try s.guest("laptop", ["pair", code, "--name", "laptop", "--wait", "30s"])
        #expect(joined.contains("confirmation: "), "\(joined)")

        let file = try #require(FileManager.default.contents(atPath: s.procs.work + "/laptop/relay.json"))
        let relay = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        #expect(relay["url"] as? String == s.relay, "\(relay)")
        #expect(relay["alternates"] as? [String] == nodes, "\(relay)")
        #expect(try s.guest("laptop", ["relay", "show"]).contains("also:     \(nodes.joined(separator: ", "))"))

        // A second workstation (`homebase pair CODE`) writes them to its config with the relay.
        let conf = s.procs.work + "/second.conf"
        let second = ["--data-dir", s.procs.work + "/second", "--config", conf]
        let paired = try s.run(s.bin.path("homebase"), second + ["pair", try s.code(try s.homebase(["pair", "--no-wait"])),
                                                               "--name", "second", "--wait", "30s"])
        #expect(paired.status == 0, "\(paired.err)")
        let written = (try? String(contentsOfFile: conf, encoding: .utf8)) ?? ""
        #expect(written.contains("relay = \(s.relay)\nrelay-alternates = \(nodes.joined(separator: ","))"), "\(written)")
        #expect(try s.run(s.bin.path("homebase"), second + ["status"]).status == 0)  // the config reads back

        // `--relay` naming another relay than the config's: the config's alternates are not its nodes.
        let other = try s.code(try s.homebase(["pair", "--no-wait", "--relay", "ws://127.0.0.3:9"]))
        #expect(try PairingCode(parsing: other).alternates.isEmpty)
    }

    /// `homebase share` puts them in the invite; `guest join` keeps them beside the joined host.
    @Test func anInviteFromAHomebaseWithAlternatesLeavesThemBesideTheJoinedHost() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        let nodes = try startHostWithAlternates(s, count: 1)
        let invite = String(try s.homebase(["share", "--models", "tiny"]).prefix { $0 != "\n" })
        let join = try s.guestRun("friend", ["join", invite, "--as", "friend", "--wait", "30s", "--relay-wait", "3s", "--connect-timeout", "2s"])
        #expect(join.status == 0 && join.out.contains("joined"), "\(join.out)\(join.err)")
        let dir = s.procs.work + "/friend/joined"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".alternates") }
        #expect(files.count == 1, "\(files)")
        let text = try files.first.map { try String(contentsOfFile: dir + "/" + $0, encoding: .utf8) }
        #expect(text == nodes[0] + "\n", "\(text ?? "none")")
        // The account's relay.json is not the friend's Homebase's: none written.
        #expect(!FileManager.default.fileExists(atPath: s.procs.work + "/friend/relay.json"))
    }

    /// `guest pair` with no code on a paired laptop: the running Homebase's answer (its pair-code
    /// request path, not `homebase pair`) names the alternates too.
    @Test func aCodeASiblingAsksTheRunningHomebaseForNamesTheAlternates() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        let nodes = try startHostWithAlternates(s)
        let joined = try s.guest("laptop", ["pair", try s.code(try s.homebase(["pair", "--no-wait"])), "--name", "laptop", "--wait", "30s"])
        #expect(joined.contains("confirmation: "), "\(joined)")

        let asked = try s.guestRun("laptop", ["pair", "--no-wait", "--connect-timeout", "5s"])
        #expect(asked.status == 0, "\(asked.err)\(asked.out)")
        let code = try PairingCode(parsing: try s.code(asked.out))
        #expect(code.alternates == nodes, "\(code.alternates)")
        #expect(code.relayURL.hasPrefix(s.relay), "\(code.relayURL)")
    }
}
