import Foundation
import Glibc
@testable import GuestAgent
@testable import OnDeviceEngine
import Testing

/// `guest status` with a relay: the built binaries (relay, homebase with no runtime, guest) on
/// loopback. The JSON carries the same relay facts as the text.
@Suite(.serialized) struct StatusRelayCLITests {
    @Test func statusJSONCarriesTheRelayFacts() throws {
        let bin = URL(fileURLWithPath: CLITests.binary).deletingLastPathComponent().path
        let g = try GuestRunner()
        let work = g.dataDir + "-world"
        let procs = ServeRelayCLITests.Started()
        defer { procs.stop() }
        let t = ServeRelayCLITests()
        let relayPort = try freeLoopbackPort()
        let relay = "ws://127.0.0.1:\(relayPort)"
        try procs.start(bin + "/homebase-relay", ["serve", "--listen", "127.0.0.1:\(relayPort)", "--data-dir", work + "-relay", "--metrics-listen", "off"],
                        log: work + "-relay.log")
        let hb = ["--data-dir", work + "-host"]
        let initOut = try t.run(bin + "/homebase", ["init", "--name", "status-homebase"] + hb).out
        func field(_ prefix: String) throws -> String {
            let line = try #require(initOut.split(separator: "\n").first { $0.hasPrefix(prefix) }, "\(prefix) in \(initOut)")
            return String(line.dropFirst(prefix.count))
        }
        let account = try field("account key: "), hostRecord = try field("device record: ")
        let guestRecord = String(try g.run("init", "--name", "status-laptop", "--account", account).out.prefix { $0 != "\n" })
        #expect(try t.run(bin + "/homebase", ["devices", "add", guestRecord] + hb).status == 0)

        // No relay yet: the JSON says so, as the text does.
        let none = try json(g.run("status", "--json"))
        let noRelay = try #require(none["relay"] as? [String: Any])
        #expect(noRelay["linkState"] as? String == "none" && noRelay["url"] == nil)

        #expect(try g.run("relay", "set", relay, "--homebase", hostRecord).status == 0)
        try procs.start(bin + "/homebase", ["run", "--relay", relay, "--reload-interval", "200ms"] + hb,
                        log: work + "-homebase.log")
        try t.waitUntil(60, "the Homebase's advert") {
            ((try? String(contentsOfFile: work + "-homebase.log", encoding: .utf8)) ?? "").contains("to 1 device")
        }
        let o = try json(g.run("status", "--json", "--relay-wait", "5s"))
        let r = try #require(o["relay"] as? [String: Any], "\(o)")
        #expect(r["url"] as? String == relay)
        #expect(r["linkState"] as? String == "connected", "\(r)")
        #expect((r["link"] as? String)?.hasPrefix("connected to \(relay)") == true)
        #expect((r["lastMail"] as? String)?.isEmpty == false, "\(r)")
        let homebaseKey = try #require(r["homebaseKey"] as? String)
        #expect(homebaseKey.count == 64 && r["advertHost"] as? String == homebaseKey)
        #expect(r["advertAgeSeconds"] as? Int != nil && (r["advertSequence"] as? Int ?? 0) >= 1)
        #expect(r["advertModels"] as? [String] == [])

        // The text says the same things (the mail was read by the run above: none is new now).
        let text = try g.run("status", "--relay-wait", "5s").out
        #expect(text.contains("relay link:    connected to \(relay)"), "\(text)")
        #expect(text.contains("homebase key:  \(homebaseKey.prefix(16))…"))
        #expect(text.contains("from Homebase \(homebaseKey.prefix(16))…"))
    }

    func json(_ run: CLITests.Run) throws -> [String: Any] {
        #expect(run.status == 0, "\(run.err)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any], "\(run.out)")
    }
}
