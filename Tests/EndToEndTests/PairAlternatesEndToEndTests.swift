import Foundation
import Pairing
import Testing

/// A Homebase configured with other nodes of its relay's cluster (`relay-alternates`) names them
/// in its pairing codes, and the paired guest keeps them in relay.json (docs/CLUSTER.md "Devices").
@Suite(.serialized) struct PairAlternatesEndToEndTests {
    @Test func aCodeFromAHomebaseWithAlternatesLeavesThemInTheGuestsRelayFile() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        _ = try s.initHost()
        // Nodes nothing listens on: the guest stores them; it dials the code's relay first.
        let nodes = ["ws://localhost:\(try Processes.freePort())/v1/connect", "ws://127.0.0.2:\(try Processes.freePort())/v1/connect"]
        let config = s.procs.work + "/config/homebase"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try "relay = \(s.relay)\nrelay-alternates = \(nodes.joined(separator: ", "))\n"
            .write(toFile: config + "/homebase.conf", atomically: true, encoding: .utf8)
        try s.startHost()

        let code = try s.code(try s.homebase(["pair", "--no-wait"]))
        #expect(try PairingCode(parsing: code).alternates == nodes)
        let joined = try s.guest("laptop", ["pair", code, "--name", "laptop", "--wait", "30s"])
        #expect(joined.contains("confirmation: "), "\(joined)")

        let file = try #require(FileManager.default.contents(atPath: s.procs.work + "/laptop/relay.json"))
        let relay = try #require(try JSONSerialization.jsonObject(with: file) as? [String: Any])
        #expect(relay["url"] as? String == s.relay, "\(relay)")
        #expect(relay["alternates"] as? [String] == nodes, "\(relay)")
        #expect(try s.guest("laptop", ["relay", "show"]).contains("also:     \(nodes.joined(separator: ", "))"))

        // `--relay` naming another relay than the config's: the config's alternates are not its nodes.
        let other = try s.code(try s.homebase(["pair", "--no-wait", "--relay", "ws://127.0.0.3:9"]))
        #expect(try PairingCode(parsing: other).alternates.isEmpty)
    }
}
