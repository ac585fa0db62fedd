import Foundation
@testable import GuestAgent
@testable import OnDeviceEngine
import Glibc
import Testing

/// `guest serve` on the linked context: with the Homebase as the route, the official clients'
/// answers come from it through a real relay (relay, homebase on llama-server, guest: the built
/// binaries on loopback), exactly like `guest chat`'s.
@Suite(.serialized) struct ServeRelayCLITests {
    final class Started: @unchecked Sendable {  // one test's background processes
        var all: [Process] = []
        func start(_ program: String, _ args: [String], log: String) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: program)
            p.arguments = args
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let h = FileHandle(forWritingAtPath: log)!
            p.standardOutput = h
            p.standardError = h
            p.standardInput = FileHandle.nullDevice
            try p.run()
            all.append(p)
        }
        func stop() { for p in all where p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() } }
    }

    /// Runs a built program to its end: status and stdout.
    func run(_ program: String, _ args: [String]) throws -> (status: Int32, out: String) {
        try runProgram(program, args)
    }

    /// Polls until `condition` holds: a hang guard of `seconds`, not a speed check.
    func waitUntil(_ seconds: Int, _ what: String, _ condition: () throws -> Bool) throws {
        for _ in 0..<(seconds * 10) {
            if try condition() { return }
            usleep(100_000)
        }
        throw SetupError("timed out waiting for \(what)")
    }

    @Test func officialClientsGetTheHomebaseThroughTheRelay() throws {
        let tiny = try Engine.tiny()
        let bin = URL(fileURLWithPath: CLITests.binary).deletingLastPathComponent().path
        let g = try GuestRunner()
        let work = g.dataDir + "-world"
        let procs = Started()
        defer { procs.stop() }
        let relayPort = try freeLoopbackPort(), enginePort = try freeLoopbackPort()
        let relay = "ws://127.0.0.1:\(relayPort)"
        try procs.start(bin + "/homebase-relay", ["serve", "--listen", "127.0.0.1:\(relayPort)", "--data-dir", work + "-relay", "--metrics-listen", "off"],
                        log: work + "-relay.log")
        try procs.start(Engine.binary, ["--model", tiny.path, "--host", "127.0.0.1", "--port", "\(enginePort)",
                                        "--alias", "tiny", "--threads", "1"], log: work + "-engine.log")
        let hb = ["--data-dir", work + "-host"]
        let initOut = try run(bin + "/homebase", ["init", "--name", "serve-homebase"] + hb).out
        func field(_ prefix: String) throws -> String {
            let line = try #require(initOut.split(separator: "\n").first { $0.hasPrefix(prefix) }, "\(prefix) in \(initOut)")
            return String(line.dropFirst(prefix.count))
        }
        let account = try field("account key: "), hostRecord = try field("device record: ")
        try waitUntil(120, "homebase runtime add to pass its probe") {
            try run(bin + "/homebase", ["runtime", "add", "http://127.0.0.1:\(enginePort)"] + hb).status == 0
        }
        let guestRecord = String(try g.run("init", "--name", "serve-laptop", "--account", account).out.prefix { $0 != "\n" })
        #expect(try run(bin + "/homebase", ["devices", "add", guestRecord] + hb).status == 0)
        #expect(try g.run("relay", "set", relay, "--homebase", hostRecord).status == 0)
        for (name, value) in [("model.source", "external"), ("ollama.model", "tiny")] {
            #expect(try g.run("settings", "set", name, value).status == 0)
        }
        try procs.start(bin + "/homebase", ["run", "--relay", relay, "--advert-pulse", "2s", "--reload-interval", "200ms"] + hb,
                        log: work + "-homebase.log")
        try waitUntil(60, "the Homebase's advert") {
            ((try? String(contentsOfFile: work + "-homebase.log", encoding: .utf8)) ?? "").contains("to 1 device")
        }

        let serving = try g.serve(["--model-path", tiny.path, "--llama-server", Engine.binary, "--relay-wait", "3s",
                                   "--accept-timeout", "5s", "--first-output-timeout", "60s", "--stall-timeout", "20s"])
        defer { _ = serving.stop() }
        let o = try runServeClients(serving.hostPort, maxTokens: 8)
        for mode in ["openai_whole", "openai_stream", "ollama_whole", "ollama_stream"] {
            let r = try #require(o[mode] as? [String: Any], "\(mode) missing: \(o)")
            #expect(!(r["content"] as? String ?? "").isEmpty, "\(mode): \(r)")
            #expect(r["header"] as? String == "homebase", "\(mode): \(r)")
        }
        let homebase = try #require((o["openai_stream"] as? [String: Any])?["homebase"] as? [String: String])
        #expect(homebase["brain"] == "homebase")
        #expect(homebase["route_reason"]?.contains("Ollama model tiny on own Homebase") == true, "\(homebase)")
        #expect(homebase["fell_back_from"] == nil)
        // The own Homebase's advert models and the on-device model, each with its brain.
        let listed = ["default", "tiny", "tiny-seed0"]
        #expect(o["openai_models"] as? [String] == listed, "\(o)")
        #expect(o["ollama_tags"] as? [String] == listed, "\(o)")
        let brains = ["default": "homebase", "tiny": "homebase", "tiny-seed0": "on-device"]
        for key in ["openai_model_brains", "ollama_tag_brains"] { #expect(o[key] as? [String: String] == brains, "\(key): \(o)") }

        // A local runtime serving `tiny` too: the list names `tiny` once (the own Homebase's, the
        // first source), and `default` now goes to the runtime (the router's shape 2).
        try waitUntil(120, "guest runtime add to pass its probe") {
            try g.run("runtime", "add", "http://127.0.0.1:\(enginePort)").status == 0
        }
        let models = try getJSON("http://\(serving.hostPort)/v1/models")
        let entries = try #require(models["data"] as? [[String: Any]], "\(models)")
        #expect(entries.compactMap { $0["id"] as? String } == listed, "\(models)")
        #expect(entries.first?["homebase_brain"] as? String == "local-endpoint", "\(models)")
        #expect(entries.first { $0["id"] as? String == "tiny" }?["homebase_brain"] as? String == "homebase")
    }

    /// GET `url` with Python's urllib (the venv's interpreter): the JSON object it answered.
    func getJSON(_ url: String) throws -> [String: Any] {
        let code = "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=30).read().decode())"
        let out = try run(try venvPython(), ["-c", code, url]).out
        return try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(out)")
    }
}
