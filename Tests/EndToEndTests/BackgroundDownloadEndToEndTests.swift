import Foundation
import Glibc
import Testing

/// A sibling's choice of a local model this device lacks, received by a one-shot command: the
/// download runs in a detached fetcher that outlives that command, only one runs however many
/// guest processes start meanwhile, a killed fetcher is resumed by the next guest start, and the
/// model ends up selected. Real processes: relay, Homebase, two guests, the stand-in hub.
@Suite(.serialized) struct BackgroundDownloadEndToEndTests {
    @Test func aChoiceReceivedByAOneShotCommandIsDownloadedAfterItExitsOnceAndAfterAKill() throws {
        let s = try PairScene(engine: false)
        let hub = try StandInHub(s)
        defer { Self.killFetchers(under: s.procs.work); hub.stop(); s.stop() }
        let wait = ["--relay-wait", "5s"]
        let id = try LocalModelChoiceEndToEndTests.siblingsAndAModelOnA(s, wait)
        let cdnBefore = try hub.cdnRequests()

        // b's download is held after 100 kB; a chooses; b learns it in a one-shot `status`.
        try hub.mode("hold=100000")
        #expect(try s.guest("a", ["models", "use", String(id)] + wait).contains("using \(id)"))
        _ = try s.guest("b", ["status"] + wait)  // it has exited when this returns
        try s.procs.waitUntil(60, "b's fetcher to receive bytes") {
            try s.guest("b", ["models", "list"]).contains("\(id): downloading in the background since")
        }
        let fetchers = Self.fetchers(under: s.procs.work + "/b")
        #expect(fetchers.count == 1, "\(fetchers)")

        // More guest starts while it runs: no second download.
        let json = try s.guest("b", ["status", "--json"] + wait)
        #expect(json.contains("\"phase\" : \"downloading\"") && json.contains("\"selectWhenReady\" : true"), "\(json)")
        _ = try s.guest("b", ["status"] + wait)
        #expect(Self.fetchers(under: s.procs.work + "/b") == fetchers)
        #expect(s.procs.read("b/model-downloads.log").components(separatedBy: "\(id): downloading (pid").count == 2)
        #expect(try hub.cdnRequests() == cdnBefore + 1)
        // Nor by hand: a pull of the same model is refused while the fetcher holds it.
        let byHand = try s.guestRun("b", ["models", "pull", String(id)])
        #expect(byHand.status == 1 && byHand.err.contains("downloading in the background"), "\(byHand.err)")

        // Killed mid-download: nothing fetches it, and `models list` says so (it does not resume).
        for pid in fetchers { kill(pid, SIGKILL) }
        try s.procs.waitUntil(30, "the fetcher to die") { Self.fetchers(under: s.procs.work + "/b").isEmpty }
        let stopped = try s.guest("b", ["models", "list"])
        #expect(stopped.contains("\(id): background download stopped"), "\(stopped)")
        #expect(!stopped.contains("* \(id)"))

        // The next guest start resumes it from the partial file; once ready it is selected.
        _ = try s.guest("b", ["status"] + wait)
        try s.procs.waitUntil(120, "b to select the model") {
            s.procs.read("b/guest.log").contains("model choice: \(id) downloaded and selected")
        }
        let list = try s.guest("b", ["models", "list"])
        #expect(list.contains("* \(id)  ready") && !list.contains("In the background"), "\(list)")
        let resumed = try hub.requests().filter { $0.host.hasPrefix("127.0.0.2") }.last
        #expect(resumed?.range?.hasPrefix("bytes=") == true, "the resume asked for the rest: \(String(describing: resumed))")
        #expect(!s.procs.read("b/guest.log").contains("sent to"), "b sent the choice on")
    }

    /// Pids of `guest models fetch-wanted` processes whose arguments name `dataDir`.
    static func fetchers(under dataDir: String) -> [pid_t] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { pid_t($0) } ?? []
        return pids.filter { pid in
            guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let argv = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return argv.contains("fetch-wanted") && argv.contains { $0.hasPrefix(dataDir) }
        }.sorted()
    }

    static func killFetchers(under dir: String) { for pid in fetchers(under: dir) { kill(pid, SIGKILL) } }
}

/// Tests/ModelStoreTests/peers/hub.py for a scene: HF_ENDPOINT points at it.
struct StandInHub {
    let process = Process()
    let input = Pipe()
    let port: Int
    let scene: PairScene

    init(_ s: PairScene) throws {
        scene = s
        let out = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [LocalModelChoiceEndToEndTests.packageRoot + "/Tests/ModelStoreTests/peers/hub.py", s.bin.model]
        process.standardOutput = out
        process.standardInput = input
        try process.run()
        let first = String(decoding: out.fileHandleForReading.availableDataLine(), as: UTF8.self)
        guard first.hasPrefix("PORT "), let port = Int(first.dropFirst(5)) else { throw Failure("hub: \(first)") }
        self.port = port
        s.extraEnvironment["HF_ENDPOINT"] = "http://127.0.0.1:\(port)"
    }

    func stop() { process.terminate() }

    func mode(_ q: String) throws {
        let r = try scene.run("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/_mode?\(q)"])
        guard r.status == 0 else { throw Failure("hub mode \(q): curl exited \(r.status)") }
    }

    struct Request { var host: String; var path: String; var range: String? }

    func requests() throws -> [Request] {
        let r = try scene.run("/usr/bin/curl", ["-sf", "http://127.0.0.1:\(port)/_log"])
        guard r.status == 0, let list = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [[String: Any]] else {
            throw Failure("hub log: \(r.out)")
        }
        return list.map { e in
            let headers = e["headers"] as? [String: Any] ?? [:]
            let range = headers.first { $0.key.lowercased() == "range" }?.value as? String
            return Request(host: e["host"] as? String ?? "", path: e["path"] as? String ?? "", range: range)
        }
    }

    /// Model file downloads so far (the CDN is 127.0.0.2).
    func cdnRequests() throws -> Int { try requests().filter { $0.host.hasPrefix("127.0.0.2") }.count }
}
