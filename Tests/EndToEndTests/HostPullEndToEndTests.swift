import Foundation
import Glibc
import Testing

/// `guest host pull` against a Hugging Face stand-in (Tests/ModelStoreTests/peers/hub.py: the
/// tree API with each file's sha256, resolve answering 302 to a CDN on 127.0.0.2), through a real
/// relay onto a router llama-server (#21): a corrupted download is refused by its sha256 and
/// removed; a whole one lands; one cut short resumes from its partial file; Ctrl-C on the laptop, or `pull --cancel` from another own device,
/// stops a pull under way on the Homebase and removes its partial file.
@Suite(.serialized) struct HostPullEndToEndTests {
    static let repoFile = "hbtest/Llama-Tiny-0.5M-Instruct-GGUF/Llama-Tiny-0.5M-Instruct-F32.gguf"
    static let fileName = "Llama-Tiny-0.5M-Instruct-F32.gguf"

    struct Scene {
        let lb: Loopback
        let laptop: Guest
        let desktop: Guest
        let models: String
        let hubPort: Int
        let hubInput: FileHandle

        init() throws {
            lb = try Loopback(engine: .llama)
            models = lb.procs.work + "/host-models"
            try FileManager.default.createDirectory(atPath: models, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: lb.bin.model, toPath: models + "/seed.gguf")
            let port = try Processes.freePort()
            try lb.procs.start(lb.bin.engine, ["--models-dir", models, "--models-max", "1", "--host", "127.0.0.1", "--port", "\(port)"],
                               log: "router.log")
            let (_, input) = try lb.procs.startInteractive(Processes.python, [testsFile("ModelStoreTests/peers/hub.py"), lb.bin.model],
                                                           log: "hub.log")
            hubInput = input
            let found = try lb.procs.announcedPort(in: "hub.log", "the stand-in hub")
            hubPort = found
            let url = "http://127.0.0.1:\(port)", home = lb
            try lb.procs.waitUntil(60, "homebase runtime add of the router llama-server") {
                ((try? home.procs.run(home.bin.path("homebase"), home.hostArgs + ["runtime", "add", url]))?.status ?? 1) == 0
            }
            laptop = try lb.addGuest("laptop")
            desktop = try lb.addGuest("desktop")
            try lb.startHomebase(["--models-dir", models, "--hub-url", "http://127.0.0.1:\(hubPort)"], devices: 2)
            try laptop.waitForAdvert()
            try desktop.waitForAdvert()
        }

        func mode(_ q: String) throws {
            let r = try lb.procs.capture("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(hubPort)/_mode?\(q)"])
            guard r.status == 0 else { throw Failure("hub mode \(q): curl exited \(r.status)") }
        }

        func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: models)) ?? []).sorted() }
        var logs: String { "homebase: \(lb.procs.read("homebase.log").suffix(3000))\nhub: \(lb.procs.read("hub.log").suffix(500))" }

        /// A pull in the background, held by the hub after its first bytes: returns once the partial file is there.
        func heldPull(log: String) throws -> Process {
            try mode("reset=1&hold=4096")
            let p = try lb.procs.start(lb.bin.path("guest"), ["host", "pull", HostPullEndToEndTests.repoFile, "--json"] + laptop.globalFlags,
                                       log: log)
            try lb.procs.waitUntil(60, "the partial file of the held pull") { files().contains { $0.hasSuffix(".part") } }
            return p
        }

        func waitForExit(_ p: Process) throws {
            try lb.procs.waitUntil(60, "the pull to end") { !p.isRunning }
        }
    }

    @Test func aCorruptDownloadIsRefusedByItsSHA256AWholeOneLands() throws {
        let s = try Scene()
        defer { s.lb.stopAll() }
        try s.mode("reset=1&corrupt=1")
        let bad = try s.lb.procs.capture(s.lb.bin.path("guest"), ["host", "pull", Self.repoFile] + s.laptop.globalFlags)
        #expect(bad.status == 1 && bad.err.contains("sha256") && bad.err.contains("removed"), "\(bad.err)\n\(s.logs)")
        #expect(s.files() == ["seed.gguf"], "\(s.files())")

        try s.mode("reset=1")
        let good = HostManageEndToEndTests.lines(try s.laptop.run(["host", "pull", Self.repoFile, "--json"]))
        #expect((good.last?["result"] as? String)?.contains("pulled Llama-Tiny-0.5M-Instruct-F32") == true, "\(good)\n\(s.logs)")
        #expect(good.contains { ($0["progress"] as? [String: Any])?["status"] as? String == "verifying sha256" }, "\(good)")
        #expect(s.files() == [Self.fileName, "seed.gguf"], "\(s.files())")
        #expect(FileManager.default.contentsEqual(atPath: s.models + "/" + Self.fileName, andPath: s.lb.bin.model))
    }

    @Test func aDownloadCutShortResumesFromItsPartialFile() throws {
        let s = try Scene()
        defer { s.lb.stopAll() }
        try s.mode("reset=1&cut=100000")
        let cut = try s.lb.procs.capture(s.lb.bin.path("guest"), ["host", "pull", Self.repoFile] + s.laptop.globalFlags)
        #expect(cut.status == 1 && cut.err.contains("pull again to resume"), "\(cut.err)\n\(s.logs)")
        let part = s.models + "/." + Self.fileName + ".part"
        let kept = ((try? FileManager.default.attributesOfItem(atPath: part)[.size]) as? NSNumber)?.intValue ?? 0
        #expect(kept > 0 && kept <= 100_000, "the partial file: \(kept) bytes")

        try s.mode("reset=1")
        let done = HostManageEndToEndTests.lines(try s.laptop.run(["host", "pull", Self.repoFile, "--json"]))
        #expect((done.last?["result"] as? String)?.contains("pulled Llama-Tiny-0.5M-Instruct-F32") == true, "\(done)\n\(s.logs)")
        #expect(FileManager.default.contentsEqual(atPath: s.models + "/" + Self.fileName, andPath: s.lb.bin.model))
        #expect(s.files() == [Self.fileName, "seed.gguf"], "\(s.files())")
        // The second download asked the CDN for the rest only.
        let log = try s.lb.procs.capture("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(s.hubPort)/_log"])
        let requests = (try JSONSerialization.jsonObject(with: Data(log.out.utf8)) as? [[String: Any]]) ?? []
        let ranges = requests.compactMap { ($0["headers"] as? [String: Any])?.first { $0.key.lowercased() == "range" }?.value as? String }
        #expect(ranges.contains("bytes=\(kept)-"), "\(ranges)")
    }

    @Test func ctrlCOrPullCancelStopsThePullOnTheHomebase() throws {
        let s = try Scene()
        defer { try? s.mode("release=1"); s.lb.stopAll() }
        // Nothing under way: said so.
        let none = try s.lb.procs.capture(s.lb.bin.path("guest"), ["host", "pull", "--cancel", Self.repoFile] + s.laptop.globalFlags)
        #expect(none.status == 1 && none.err.contains("no pull of"), "\(none.err)")

        // Ctrl-C on the laptop: the Homebase stops the download and removes the partial file before the guest exits.
        let first = try s.heldPull(log: "pull1.log")
        kill(first.processIdentifier, SIGINT)
        try s.waitForExit(first)
        let out1 = s.lb.procs.read("pull1.log")
        #expect(first.terminationStatus == 128 + SIGINT && out1.contains("cancelled the pull of"), "\(out1)\n\(s.logs)")
        #expect(s.files() == ["seed.gguf"], "\(s.files())")

        // `pull --cancel` from another own device: the held pull ends with the host's words, the cancel says what it did.
        // (Another terminal of the laptop itself would take over the laptop's relay link: the held pull there ends at its --timeout.)
        let second = try s.heldPull(log: "pull2.log")
        let cancel = try s.lb.procs.capture(s.lb.bin.path("guest"), ["host", "pull", "--cancel", Self.repoFile] + s.desktop.globalFlags)
        #expect(cancel.status == 0 && cancel.out.contains("cancelled the pull of"), "\(cancel.out)\(cancel.err)\n\(s.logs)")
        try s.waitForExit(second)
        let out2 = s.lb.procs.read("pull2.log")
        #expect(second.terminationStatus == 1 && out2.contains("was cancelled"), "\(out2)")
        #expect(s.files() == ["seed.gguf"], "\(s.files())")
        try s.mode("release=1")
    }
}
