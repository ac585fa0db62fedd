import Foundation
import Glibc
import Testing

/// `guest host` on an Ollama runtime (#21 point 1), through a real relay: the Homebase holds
/// the real llama-server and a STAND-IN Ollama (peers/ollama_standin.py: no Ollama exists on
/// this machine; it speaks Ollama's /api as docs/api.md gives it). The laptop lists its models
/// with sizes and what is loaded, loads and unloads (the stand-in's /api/ps follows), pulls with
/// progress (the model advertised after, and answering), deletes (the advert drops it), is told
/// clearly when the library has no such model, and Ctrl-C or `--cancel` closes the pull stream.
@Suite(.serialized) struct HostOllamaEndToEndTests {
    struct Scene {
        let lb: Loopback
        let laptop: Guest
        let desktop: Guest
        let ollamaPort: Int
        let input: FileHandle
        var url: String { "http://127.0.0.1:\(ollamaPort)" }

        init() throws {
            lb = try Loopback(engine: .llama)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/peers/ollama_standin.py"
            (_, input) = try lb.procs.startInteractive(Processes.python, [script, "--model", "standin-chat=123456",
                                                                          "--library", "standin-pulled:q4=654321",
                                                                          "--hold", "standin-slow"], log: "ollama.log")
            let found = try lb.procs.announcedPort(in: "ollama.log", "the stand-in Ollama")
            ollamaPort = found
            let url = "http://127.0.0.1:\(found)"
            let add = try lb.procs.run(lb.bin.path("homebase"), lb.hostArgs + ["runtime", "add", url])
            guard add.status == 0 else { throw Failure("homebase runtime add of the stand-in Ollama: \(add.out)") }
            laptop = try lb.addGuest("laptop")
            desktop = try lb.addGuest("desktop")
            try lb.startHomebase(devices: 2)
            try laptop.waitForAdvert()
            try desktop.waitForAdvert()
        }

        /// The stand-in's own view: GET `path` as JSON.
        func get(_ path: String) throws -> [String: Any] {
            let r = try lb.procs.capture("/usr/bin/curl", ["-sf", url + path])
            guard r.status == 0, let o = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any] else {
                throw Failure("GET \(path) from the stand-in Ollama: \(r.out)")
            }
            return o
        }

        func running() throws -> [String] { (try get("/api/ps")["models"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } }
        func pulls() throws -> [[String: Any]] { try get("/_record")["pulls"] as? [[String: Any]] ?? [] }
        func advertModels() throws -> [String] { (try laptop.status()["relay"] as? [String: Any])?["advertModels"] as? [String] ?? [] }
        var logs: String { "homebase: \(lb.procs.read("homebase.log").suffix(3000))" }

        /// The Ollama runtime's models in a `--json` result: name → (size, loaded, advertised).
        func models(_ result: [String: Any]) -> [String: [String: Any]] {
            let rt = (result["runtimes"] as? [[String: Any]] ?? []).first { $0["url"] as? String == url } ?? [:]
            var out: [String: [String: Any]] = [:]
            for m in rt["models"] as? [[String: Any]] ?? [] { if let n = m["name"] as? String { out[n] = m } }
            return out
        }

        func host(_ args: [String]) throws -> [String: Any] {
            try #require(HostManageEndToEndTests.lines(try laptop.run(["host"] + args + ["--json"])).last, "no JSON from guest host \(args)")
        }
    }

    @Test func listLoadUnloadPullDeleteAndAnUnknownModel() throws {
        let s = try Scene()
        defer { s.lb.stopAll() }
        let listed = try s.host(["models"])
        let rt = (listed["runtimes"] as? [[String: Any]] ?? []).first { $0["url"] as? String == s.url } ?? [:]
        #expect(rt["kind"] as? String == "ollama" && rt["pull"] as? Bool == true && rt["load"] as? Bool == true, "\(listed)")
        let chat = try #require(s.models(listed)["standin-chat:latest"], "\(listed)")
        #expect(chat["size"] as? Int == 123456, "\(chat)")
        #expect(chat["loaded"] as? Bool == (try s.running().contains("standin-chat:latest")), "\(chat)")

        // Ollama's short names (no tag: `latest`) act on the model the listing names in full.
        let unloaded = try s.host(["unload", "standin-chat"])
        #expect((unloaded["result"] as? String)?.contains("unloaded") == true, "\(unloaded)\n\(s.logs)")
        #expect(try s.running().isEmpty && s.models(unloaded)["standin-chat:latest"]?["loaded"] as? Bool == false, "\(unloaded)")
        let loaded = try s.host(["load", "standin-chat"])
        #expect(try s.running() == ["standin-chat:latest"] && s.models(loaded)["standin-chat:latest"]?["loaded"] as? Bool == true,
                "\(loaded)")

        // The pull: Ollama's progress lines reach the laptop, whole at the end; then advertised, and it answers.
        let pulled = HostManageEndToEndTests.lines(try s.laptop.run(["host", "pull", "standin-pulled:q4", "--json"]))
        let progress = pulled.compactMap { $0["progress"] as? [String: Any] }
        #expect(progress.contains { $0["status"] as? String == "pulling manifest" }, "\(pulled)\n\(s.logs)")
        #expect(progress.contains { $0["completed"] as? Int == 654321 && $0["total"] as? Int == 654321 }, "\(progress)")
        let done = progress.map { $0["completed"] as? Int ?? -1 }
        #expect(done == done.sorted() && progress.last?["status"] as? String == "success", "the bar only grows: \(progress)")
        let result = try #require(pulled.last)
        #expect((result["result"] as? String)?.contains("pulled standin-pulled:q4") == true, "\(result)")
        #expect(s.models(result)["standin-pulled:q4"]?["size"] as? Int == 654321, "\(result)")
        try s.lb.procs.waitUntil(60, "the advert to list standin-pulled:q4") { try s.advertModels().contains("standin-pulled:q4") }
        _ = try s.laptop.run(["settings", "set", "ollama.model", "standin-pulled:q4"])
        let answer = try s.laptop.chat("hello pulled model")
        #expect(answer.line.brain == "homebase" && answer.out.contains("Stand-in Ollama reply."), "\(answer.out)\n\(s.logs)")

        // A name the library does not have: a clear error, nothing added.
        let unknown = try s.lb.procs.capture(s.lb.bin.path("guest"), ["host", "pull", "no-such-model"] + s.laptop.globalFlags)
        #expect(unknown.status == 1 && unknown.err.contains("no-such-model:latest") && unknown.err.contains("library"),
                "\(unknown.err)\n\(s.logs)")
        #expect(try s.pulls().last?["outcome"] as? String == "error")
        let missing = try s.lb.procs.capture(s.lb.bin.path("guest"), ["host", "delete", "no-such-model", "--runtime", s.url] + s.laptop.globalFlags)
        #expect(missing.status == 1 && missing.err.contains("has no model no-such-model:latest"), "\(missing.err)")

        // Delete: gone from the stand-in, the result and the advert.
        let deleted = try s.host(["delete", "standin-pulled:q4"])
        #expect((deleted["result"] as? String)?.contains("deleted standin-pulled:q4") == true, "\(deleted)")
        #expect(s.models(deleted)["standin-pulled:q4"] == nil, "\(deleted)")
        try s.lb.procs.waitUntil(60, "the advert to drop standin-pulled:q4") {
            let m = try s.advertModels()
            return !m.contains("standin-pulled:q4") && m.contains("standin-chat:latest")
        }

        // Pulled again, without --json: the bar on stderr (a line per tenth when it is not a terminal).
        let again = try s.lb.procs.capture(s.lb.bin.path("guest"), ["host", "pull", "standin-pulled:q4"] + s.laptop.globalFlags)
        #expect(again.status == 0 && again.err.contains("100%") && again.out.contains("pulled standin-pulled:q4"), "\(again.out)\(again.err)")
    }

    @Test func ctrlCOrCancelClosesThePullStream() throws {
        let s = try Scene()
        defer { s.lb.stopAll() }
        func held(_ log: String) throws -> Process {
            let p = try s.lb.procs.start(s.lb.bin.path("guest"), ["host", "pull", "standin-slow", "--json"] + s.laptop.globalFlags, log: log)
            try s.lb.procs.waitUntil(60, "progress of the held pull") { s.lb.procs.read(log).contains("\"completed\"") }
            return p
        }
        func clientGone(_ n: Int) throws {
            try s.lb.procs.waitUntil(30, "the stand-in to see its pull client go (\(n))") {
                try s.pulls().filter { $0["model"] as? String == "standin-slow:latest" && $0["outcome"] as? String == "client gone" }.count == n
            }
        }
        let first = try held("pull1.log")
        kill(first.processIdentifier, SIGINT)
        try s.lb.procs.waitUntil(60, "the pull to end") { !first.isRunning }
        #expect(first.terminationStatus == 128 + SIGINT && s.lb.procs.read("pull1.log").contains("cancelled the pull of"),
                "\(s.lb.procs.read("pull1.log"))\n\(s.logs)")
        try clientGone(1)

        let second = try held("pull2.log")
        // Named in full from the desktop: the same Ollama pull as the laptop's `standin-slow`.
        let cancel = try s.lb.procs.capture(s.lb.bin.path("guest"), ["host", "pull", "--cancel", "standin-slow:latest"] + s.desktop.globalFlags)
        #expect(cancel.status == 0 && cancel.out.contains("cancelled the pull of"), "\(cancel.out)\(cancel.err)\n\(s.logs)")
        try s.lb.procs.waitUntil(60, "the pull to end") { !second.isRunning }
        #expect(second.terminationStatus == 1 && s.lb.procs.read("pull2.log").contains("was cancelled"), "\(s.lb.procs.read("pull2.log"))")
        try clientGone(2)
        #expect(try !s.advertModels().contains("standin-slow:latest"))
    }
}
