import Foundation
@testable import GuestAgent
@testable import OnDeviceEngine
import Testing

/// `guest status` with a damaged `replay.sqlite3`: the relay link line says the replay store is
/// why no link was opened and how to get past it, not "no device identity" (issue 15).
@Test func statusWithADamagedReplayStoreSaysWhyTheLinkIsNotOpened() throws {
    let bin = URL(fileURLWithPath: CLITests.binary).deletingLastPathComponent().path
    let g = try GuestRunner()
    let t = ServeRelayCLITests()
    let initOut = try t.run(bin + "/homebase", ["init", "--name", "hb", "--data-dir", g.dataDir + "-host"]).out
    let line = try #require(initOut.split(separator: "\n").first { $0.hasPrefix("device record: ") }, "\(initOut)")
    let hostRecord = String(line.dropFirst("device record: ".count))
    #expect(try g.run("init", "--name", "laptop").status == 0)
    #expect(try g.run("relay", "set", "ws://127.0.0.1:\(try freeLoopbackPort())", "--homebase", hostRecord).status == 0)
    let replay = g.dataDir + "/replay.sqlite3"
    try Data(repeating: 0x5a, count: 4096).write(to: URL(fileURLWithPath: replay))

    let run = try g.run("status")
    let text = run.out + run.err
    #expect(!text.contains("no device identity"), "\(text)")
    #expect(text.contains("relay link:    not opened: the replay store \(replay) cannot be read"), "\(text)")
    #expect(text.contains("mv \(replay) \(replay).damaged"), "\(text)")
    let json = try JSONSerialization.jsonObject(with: Data(try g.run("status", "--json").out.utf8)) as? [String: Any]
    let relay = try #require(json?["relay"] as? [String: Any], "\(String(describing: json))")
    #expect(relay["linkState"] as? String == "replay-store-unreadable")
    // Reported, never reset: the damaged file is left as it was.
    #expect(try Data(contentsOf: URL(fileURLWithPath: replay)) == Data(repeating: 0x5a, count: 4096))
}
