import Foundation
import Testing

/// `aider-chat` from PyPI against a real `guest serve` routed to a real Homebase on the tiny
/// llama-server. aider's prompt is about 2,800 tokens (the tiny model's tokens are bytes), and
/// llama-server caps a slot at the model's training context (2,048 for the tiny model) whatever
/// `-c` says: the engine is started with `-c 32768` and that training context overridden
/// (`--override-kv llama.context_length=int:32768`). The tiny model's answer is noise,
/// so no edit can come of it (aider finds no file block in it): what this proves is that aider
/// runs its `--message` turn through serve to the Homebase and back and exits cleanly
/// (LocalAPITests.AiderApplicationTests checks the edit itself with a scripted brain).
@Suite(.serialized) struct AiderEndToEndTests {
    /// Requests the running Homebase answered with `done` (its status.json's outcomes).
    static func done(_ path: String) -> Int {
        guard let data = FileManager.default.contents(atPath: path),
              let o = try? JSONSerialization.jsonObject(with: data) else { return 0 }
        func find(_ x: Any) -> Int? {
            if let d = x as? [String: Any] {
                if let outcomes = d["outcomes"] as? [String: Any] { return (outcomes["done"] as? Int) ?? 0 }
                for v in d.values { if let n = find(v) { return n } }
            }
            return nil
        }
        return find(o) ?? 0
    }

    @Test func aiderTalksToTheHomebaseThroughServe() throws {
        let lb = try Loopback(engine: .llama, engineArgs: ["-c", "32768", "--override-kv", "llama.context_length=int:32768"])
        defer { lb.stopAll() }
        let guest = try lb.addGuest("laptop")
        try lb.startHomebase()
        try guest.waitForAdvert()
        let port = try Processes.freePort()
        let waits = Guest.chatWaits.filter { $0.name != "--max-tokens" }.flatMap { [$0.name, $0.value] }
        try lb.procs.start(lb.bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)"] + waits + guest.globalFlags,
                           log: "serve.log")
        try lb.procs.waitUntil(60, "guest serve and its serve.json") {
            Processes.canConnect(port) && FileManager.default.fileExists(atPath: guest.directory + "/serve.json")
        }
        let status = lb.procs.work + "/host/status.json"
        let before = Self.done(status)
        let line = try runJSONPeer(testsFile("LocalAPITests/peers/aider_edit.py"),
                                   ["http://127.0.0.1:\(port)", lb.model, lb.procs.work + "/aider", "300", "64"])
        let o = (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
        let logs = { "\(o)\nserve: \(lb.procs.read("serve.log").suffix(3000))\nhomebase: \(lb.procs.read("homebase.log").suffix(2000))" }
        #expect(o["installed"] as? Bool == true, "aider-chat is missing: run scripts/setup.sh")
        #expect(o["status"] as? Int == 0, "\(logs())")
        #expect(o["history_has_response"] as? Bool == true, "aider heard no answer: \(logs())")
        // The answer came from the Homebase's engine (the on-device one was never asked).
        try lb.procs.waitUntil(10, "the Homebase's done count to rise") { Self.done(status) > before }
    }
}
