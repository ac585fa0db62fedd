import Foundation
import Testing

/// `guest host` through a real relay (#21 point 1): a Homebase with a llama-server in router
/// mode on the Homebase's models folder, a stand-in hub (Python's http.server serving the tiny
/// GGUF at OWNER/REPO/resolve/main/FILE), the own laptop pulling, seeing progress, the model
/// advertised after and answering a chat; a friend's device refused `not_owner`; delete removing
/// it. Nothing is restarted by hand: the Homebase has the router rescan its folder (`?reload=1`).
@Suite(.serialized) struct HostManageEndToEndTests {
    static func lines(_ out: String) -> [[String: Any]] {
        out.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    static func modelNames(_ result: [String: Any], runtime: String) -> [String] {
        let runtimes = result["runtimes"] as? [[String: Any]] ?? []
        let rt = runtimes.first { $0["url"] as? String == runtime } ?? [:]
        return (rt["models"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    @Test func pullThroughTheRelayIsAdvertisedAFriendIsRefusedDeleteRemoves() throws {
        let lb = try Loopback(engine: .llama)
        defer { lb.stopAll() }
        let fm = FileManager.default
        let models = lb.procs.work + "/host-models", hub = lb.procs.work + "/hub"
        try fm.createDirectory(atPath: models, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: hub + "/tiny-org/tiny/resolve/main", withIntermediateDirectories: true)
        try fm.copyItem(atPath: lb.bin.model, toPath: models + "/seed.gguf")
        try fm.copyItem(atPath: lb.bin.model, toPath: hub + "/tiny-org/tiny/resolve/main/tiny-pulled.gguf")
        let modelSize = (try fm.attributesOfItem(atPath: lb.bin.model)[.size] as? NSNumber)?.intValue ?? -1

        let routerPort = try Processes.freePort(), hubPort = try Processes.freePort()
        let routerURL = "http://127.0.0.1:\(routerPort)"
        let routerArgs = ["--models-dir", models, "--models-max", "1", "--host", "127.0.0.1", "--port", "\(routerPort)"]
        try lb.procs.start(lb.bin.engine, routerArgs, log: "router.log")
        try lb.procs.start(Processes.python, ["-m", "http.server", "\(hubPort)", "--bind", "127.0.0.1", "--directory", hub], log: "hub.log")
        try lb.procs.waitUntil(60, "the stand-in hub") { Processes.canConnect(hubPort) }
        try lb.procs.waitUntil(60, "homebase runtime add of the router llama-server") {
            ((try? lb.procs.run(lb.bin.path("homebase"), lb.hostArgs + ["runtime", "add", routerURL]))?.status ?? 1) == 0
        }
        let laptop = try lb.addGuest("laptop")
        try lb.startHomebase(["--models-dir", models, "--hub-url", "http://127.0.0.1:\(hubPort)"])
        try laptop.waitForAdvert()
        let logs = { "homebase: \(lb.procs.read("homebase.log").suffix(3000))\nrouter: \(lb.procs.read("router.log").suffix(1500))" }
        func advertModels() throws -> [String] { (try laptop.status()["relay"] as? [String: Any])?["advertModels"] as? [String] ?? [] }

        // The listing: both runtimes, the router's seed model with its size.
        let listed = try #require(Self.lines(try laptop.run(["host", "models", "--json"])).last, "no JSON from guest host models")
        #expect(Self.modelNames(listed, runtime: routerURL) == ["seed"], "\(listed)")
        #expect(Self.modelNames(listed, runtime: lb.engineURL) == ["tiny"], "\(listed)")

        let plain = (listed["runtimes"] as? [[String: Any]] ?? []).first { $0["url"] as? String == lb.engineURL } ?? [:]
        #expect(plain["pull"] as? Bool == false && plain["load"] as? Bool == false, "one-model llama-server: \(plain)")

        // Load and unload: the router can; the one-model llama-server says clearly it cannot.
        for verb in ["unload", "load"] {
            let done = try #require(Self.lines(try laptop.run(["host", verb, "seed", "--runtime", routerURL, "--json"])).last)
            #expect((done["result"] as? String)?.contains("\(verb)ed seed") == true, "\(done)\n\(logs())")
            let seed = ((done["runtimes"] as? [[String: Any]] ?? []).first { $0["url"] as? String == routerURL }?["models"]
                        as? [[String: Any]] ?? []).first { $0["name"] as? String == "seed" }
            #expect(seed?["loaded"] as? Bool == (verb == "load"), "\(done)")
        }
        let cannot = try lb.procs.capture(lb.bin.path("guest"), ["host", "unload", "tiny", "--runtime", lb.engineURL] + laptop.globalFlags)
        #expect(cannot.status == 1 && cannot.err.contains("unsupported") && cannot.err.contains("router mode"), "\(cannot.err)")

        // The pull: progress lines on the laptop, then the result listing the new model; the file whole.
        let pulled = Self.lines(try laptop.run(["host", "pull", "tiny-org/tiny/tiny-pulled.gguf", "--runtime", routerURL, "--json"]))
        let progress = pulled.compactMap { $0["progress"] as? [String: Any] }
        #expect(!progress.isEmpty, "no progress seen: \(pulled)\n\(logs())")
        #expect(progress.last?["completed"] as? Int == modelSize && progress.last?["total"] as? Int == modelSize, "\(progress)")
        let result = try #require(pulled.last, "no result")
        #expect((result["result"] as? String)?.contains("pulled tiny-pulled") == true, "\(result)")
        #expect(Self.modelNames(result, runtime: routerURL).contains("tiny-pulled"), "\(result)")
        let onDisk = (try? fm.attributesOfItem(atPath: models + "/tiny-pulled.gguf")[.size] as? NSNumber)?.intValue
        #expect(onDisk == modelSize, "the pulled file: \(String(describing: onDisk)) bytes")
        #expect(!((try? fm.contentsOfDirectory(atPath: models)) ?? []).contains { $0.hasSuffix(".part") })

        // Advertised without a restart (SPEC: the advert goes out before the result), and it answers.
        try lb.procs.waitUntil(60, "the laptop's view of the advert to list tiny-pulled") { try advertModels().contains("tiny-pulled") }
        _ = try laptop.run(["settings", "set", "ollama.model", "tiny-pulled"])
        let answer = try laptop.chat("hello pulled model")
        #expect(answer.line.brain == "homebase", "\(answer.out)\n\(logs())")
        #expect(lb.procs.read("router.log").contains("name=tiny-pulled"), "the router never ran tiny-pulled: \(logs())")

        // A friend's device, joined under a share grant, is refused with the host's words.
        let invite = String(try lb.homebase(["share", "--relay", lb.relay, "--models", "tiny"]).prefix { $0 != "\n" })
        let friend = lb.procs.work + "/friend"
        let friendFlags = ["--data-dir", friend, "--llama-server", lb.bin.engine, "--model-path", lb.bin.model]
        let join = try lb.procs.capture(lb.bin.path("guest"), ["join", invite, "--as", "bob", "--wait", "30s"] + friendFlags)
        #expect(join.status == 0, "\(join.out)\(join.err)")
        let refused = try lb.procs.capture(lb.bin.path("guest"), ["host", "pull", "tiny-org/tiny/tiny-pulled.gguf",
                                                                 "--relay-wait", "3s"] + friendFlags)
        #expect(refused.status == 1, "\(refused.out)\(refused.err)")
        #expect(refused.err.contains("not_owner") && refused.err.contains("share grant"), "\(refused.err)\n\(logs())")

        // Delete: the file is gone, the result no longer lists it, and neither does the advert.
        let deleted = try #require(Self.lines(try laptop.run(["host", "delete", "tiny-pulled", "--runtime", routerURL, "--json"])).last)
        #expect((deleted["result"] as? String)?.contains("deleted tiny-pulled") == true, "\(deleted)")
        #expect(!fm.fileExists(atPath: models + "/tiny-pulled.gguf"))
        #expect(!Self.modelNames(deleted, runtime: routerURL).contains("tiny-pulled"), "\(deleted)")
        try lb.procs.waitUntil(60, "the advert to drop tiny-pulled") { try !advertModels().contains("tiny-pulled") && !advertModels().isEmpty }
        #expect(try advertModels().contains("tiny"))
    }
}
