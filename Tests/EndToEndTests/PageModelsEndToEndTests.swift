import Foundation
import Testing
import TestSupport

/// The page's on-device model actions against a real `guest serve` and the stand-in hub
/// (Tests/ModelStoreTests/peers/hub.py): a pull streams its progress, then the model is ready in
/// the store; delete removes it, both through `guest models`' code (the CLI sees the same store).
@Suite(.serialized) struct PageModelsEndToEndTests {
    @Test func aPullFromThePageStreamsProgressThenDeleteRemovesIt() throws {
        let bin = try Binaries.locate(), procs = try Processes()
        defer { procs.stopAll() }
        let hub = Process(), hubOut = Pipe(), hubIn = Pipe()
        hub.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        hub.arguments = [LocalModelChoiceEndToEndTests.packageRoot + "/Tests/ModelStoreTests/peers/hub.py", bin.model]
        hub.standardOutput = hubOut
        hub.standardInput = hubIn
        try hub.run()
        defer { hub.terminate() }
        let first = String(decoding: hubOut.fileHandleForReading.availableDataLine(), as: UTF8.self)
        guard first.hasPrefix("PORT "), let hubPort = Int(first.dropFirst(5)) else { throw Failure("hub: \(first)") }
        var env = procs.environment
        env["HF_ENDPOINT"] = "http://127.0.0.1:\(hubPort)"

        let dir = procs.work + "/laptop"
        let flags = ["--data-dir", dir, "--llama-server", bin.engine]
        #expect(try procs.run(bin.path("guest"), ["init", "--name", "laptop"] + flags).status == 0)
        let port = try Processes.freePort()
        try procs.start(bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)"] + flags, log: "serve.log", environment: env)
        try procs.waitUntil(60, "guest serve") { Processes.canConnect(port) }
        func act(_ name: String, _ body: String?) throws -> String {
            var args = ["-sS", "-N", "--max-time", "240", "http://127.0.0.1:\(port)/homebase/act/\(name)"]
            if let body { args += ["-H", "Content-Type: application/json", "--data", body] }
            let r = try procs.run("/usr/bin/curl", args, within: 250)
            guard r.status == 0 else { throw Failure("curl \(name): \(r.status) \(r.out)\n\(procs.read("serve.log"))") }
            return r.out
        }

        let repo = LocalModelChoiceEndToEndTests.repo
        let lines = try act("models/pull", #"{"target":"\#(repo)"}"#).split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
        }
        let progress = lines.filter { $0["received"] != nil }
        #expect(!progress.isEmpty, "progress lines before the reply: \(lines)")
        let received = progress.compactMap { $0["received"] as? Int }
        #expect(received == received.sorted() && (received.last ?? 0) > 0, "\(received)")
        let reply = try #require(lines.last)
        #expect(reply["ok"] as? Bool == true && (reply["text"] as? String ?? "").contains(": ready"), "\(reply)\n\(procs.read("serve.log"))")

        let listed = try act("models", nil)
        let models = (try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])?["models"] as? [[String: Any]] ?? []
        let id = try #require(models.first(where: { ($0["id"] as? String ?? "").hasPrefix(repo) })?["id"] as? String, "\(listed)")
        #expect(models.first { $0["id"] as? String == id }?["state"] as? String == "ready", "\(listed)")
        let cli = try procs.run(bin.path("guest"), ["models", "list"] + flags)
        #expect(cli.out.contains(id), "the CLI sees the page's pull: \(cli.out)")

        let deleted = try act("models/delete", #"{"id":"\#(id)"}"#)
        #expect(deleted.contains(#""ok":true"#), "\(deleted)")
        let after = try act("models", nil)
        #expect(!after.contains(id), "\(after)")
        let bad = try act("settings", #"{"name":"model.source","value":"nowhere"}"#)
        #expect(bad.contains("one of on-device, community, external"), "guest settings' own words: \(bad)")
    }
}
