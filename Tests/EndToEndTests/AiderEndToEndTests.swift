import Foundation
import Testing

/// `aider-chat` from PyPI against a real `guest serve` routed to a real Homebase on the tiny
/// llama-server, then, with the Homebase killed, to the guest's on-device llama-server. aider's
/// prompt is about 2,800 tokens (the tiny model's tokens are bytes), and llama-server caps a slot
/// at the model's training context (2,048 for the tiny model) whatever `-c` says: both engines
/// run with `-c 32768` and that training context overridden (`--override-kv
/// llama.context_length=int:32768`). The tiny model's free output is noise, so both engines also
/// run with a default grammar (`--grammar-file peers/aider_whole_edit.gbnf`, applied to every
/// request that brings none) whose only sentence is aider's "whole" edit of the test's file: the
/// real engine, through the real relay and Homebase, writes a real edit, and aider applies it.
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

    static let engineArgs = ["-c", "32768", "--override-kv", "llama.context_length=int:32768",
                             "--grammar-file", testsFile("EndToEndTests/peers/aider_whole_edit.gbnf")]
    static let edited = "def greet():\n    return \"hello from homebase\"\n"

    /// The guest's on-device engine with `engineArgs` after the guest's own: a wrapper that runs
    /// the same llama-server binary (the guest has no flag for engine arguments).
    static func onDeviceEngine(_ lb: Loopback) throws -> String {
        let path = lb.procs.work + "/llama-server-for-aider"
        let extra = engineArgs.map { "'\($0)'" }.joined(separator: " ")
        let script = "#!/bin/sh\ncase \"$1\" in --version) exec '\(lb.bin.engine)' \"$@\";; esac\n"
            + "exec '\(lb.bin.engine)' \"$@\" \(extra)\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(script.utf8), attributes: [.posixPermissions: 0o755]) else {
            throw Failure("could not write \(path)")
        }
        return path
    }

    @Test func aiderEditsThroughTheHomebaseThenOnDevice() throws {
        let (lb, guest) = try Loopback.laptop(engine: .llama, engineArgs: Self.engineArgs)
        defer { lb.stopAll() }
        let port = try Processes.freePort()
        let waits = Guest.chatWaits.filter { $0.name != "--max-tokens" }.flatMap { [$0.name, $0.value] }
        let flags = ["--data-dir", guest.directory, "--llama-server", try Self.onDeviceEngine(lb), "--model-path", lb.bin.model]
        try lb.procs.start(lb.bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)"] + waits + flags, log: "serve.log")
        try lb.procs.waitUntil(60, "guest serve and its serve.json") {
            Processes.canConnect(port) && FileManager.default.fileExists(atPath: guest.directory + "/serve.json")
        }
        let status = lb.procs.work + "/host/status.json"
        func aider(_ dir: String) throws -> [String: Any] {
            let line = try runJSONPeer(testsFile("LocalAPITests/peers/aider_edit.py"),
                                       ["http://127.0.0.1:\(port)", lb.model, lb.procs.work + "/" + dir, "300", "256"])
            return (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
        }
        let logs = { "serve: \(lb.procs.read("serve.log").suffix(2000))\nhomebase: \(lb.procs.read("homebase.log").suffix(1500))"
                     + "\nguest.log: \(guest.log.suffix(1500))" }

        let before = Self.done(status)
        let first = try aider("aider-homebase")
        #expect(first["installed"] as? Bool == true, "aider-chat is missing: run scripts/setup.sh")
        #expect(first["status"] as? Int == 0, "\(first)\n\(logs())")
        #expect(first["file"] as? String == Self.edited, "aider made no edit: \(first)\n\(logs())")
        // The Homebase's engine answered it (its done count rose; nothing fell back on-device).
        try lb.procs.waitUntil(10, "the Homebase's done count to rise") { Self.done(status) > before }
        #expect(!guest.log.contains("continuing on on-device"), "\(logs())")

        lb.killHomebase()
        let second = try aider("aider-on-device")
        #expect(second["status"] as? Int == 0, "\(second)\n\(logs())")
        #expect(second["file"] as? String == Self.edited, "aider made no edit on-device: \(second)\n\(logs())")
        // The Homebase is gone (not-here at the relay): the on-device engine answered.
        #expect(guest.log.contains("continuing on on-device"), "\(logs())")
    }
}
