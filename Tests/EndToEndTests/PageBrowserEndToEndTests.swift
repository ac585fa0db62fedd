import Foundation
import Testing
import TestSupport

/// `guest serve`'s page at `/` in a real browser: headless Chromium driven by Selenium
/// (`Tests/browser/test_page.py`, one step per run), against real processes: the relay, the own
/// Homebase on the tiny engine, `guest serve`. Needs Debian's chromium and chromium-driver and
/// the venv's selenium (scripts/setup.sh).
///
/// Screenshots are kept under the test's work directory, `page-screenshots/` (not the repo):
///   load-wide.png     the page on a 1280x900 window: chat on the left, the status panel on the right,
///                     the relay link "connected" and the own Homebase's advert bar full
///   load-phone.png    the same on 390x844: one column, the question box above the status panel
///   ask-homebase.png  a question typed with the keyboard, its answer, and the line "homebase · why: ..."
///   ask-fallback.png  after the Homebase was killed: the line names on-device and what failed
///   host.png          `homebase status --serve`: the Homebase's own read-only page, link connected
///   controls.png      the settings after the runtime dropdown chose claude and a key was added: the
///                     ring shows it masked (sk-ant-•••••WXYZ), the test's outcome beside it, the
///                     on-device shortlist marked offline (the hub is a closed port)
///   link-down.png     after the relay was stopped: the link pill not connected, the advert bar empty
@Suite(.serialized) struct PageBrowserEndToEndTests {
    @Test func thePageAnswersThroughTheHomebaseThenOnDeviceAndShowsTheLinkGoingDown() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
                     "chromium-driver missing: run scripts/setup.sh")
        let lb = try Loopback(engine: .llama)
        defer { lb.stopAll() }
        let guest = try lb.addGuest("laptop")
        // Adverts every 2 s; the guest trusts one for 10 s: the bar empties soon after the relay stops.
        try lb.startHomebase(["--advert-pulse", "2s"])
        try guest.waitForAdvert()
        let port = try Processes.freePort()
        let waits = Guest.chatWaits.filter { $0.name != "--max-tokens" }.flatMap { [$0.name, $0.value] }
        // No hub and no cloud here: closed loopback ports, so browse is offline and the key test unreachable.
        var env = lb.procs.environment
        let closed = try Processes.freePort()
        env["HF_ENDPOINT"] = "http://127.0.0.1:\(closed)"
        env["HOMEBASE_ANTHROPIC_BASE_URL"] = "http://127.0.0.1:\(closed)"
        _ = try lb.procs.start(lb.bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)", "--status-interval", "200ms",
                                                      "--advert-max-age", "10s"] + waits + guest.globalFlags, log: "serve.log",
                               environment: env)
        try lb.procs.waitUntil(60, "guest serve") { Processes.canConnect(port) }
        let shots = lb.procs.work + "/page-screenshots"
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        func step(_ args: [String], at other: Int? = nil) throws -> [String: Any] {
            let line = try runJSONPeer(testsFile("browser/test_page.py"),
                                       ["--url", "http://127.0.0.1:\(other ?? port)/", "--artefacts", shots] + args)
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return try #require(object, "\(line)")
        }

        let load = try step(["--step", "load"])
        #expect(load["ok"] as? Bool == true, "\(load)")
        #expect((load["off_loopback"] as? [String])?.isEmpty == true, "\(load)")
        #expect((load["console_errors"] as? [String])?.isEmpty == true, "\(load)")

        let first = try step(["--step", "ask", "--name", "homebase", "--question", "hello from the page"])
        #expect(first["brain"] as? String == "homebase", "\(first)\n\(lb.procs.read("serve.log"))")
        #expect((first["line"] as? String ?? "").contains("why: "), "\(first)")

        let hostPort = try Processes.freePort()
        _ = try lb.procs.start(lb.bin.path("homebase"), lb.hostArgs + ["status", "--serve", "127.0.0.1:\(hostPort)"], log: "status-page.log")
        try lb.procs.waitUntil(30, "homebase status --serve") { Processes.canConnect(hostPort) }
        let hostPage = try step(["--step", "host"], at: hostPort)
        #expect(hostPage["ok"] as? Bool == true, "\(hostPage)")
        #expect(hostPage["link"] as? String == "connected", "\(hostPage)")

        lb.killHomebase()
        let second = try step(["--step", "ask", "--name", "fallback", "--question", "are you still there"])
        let line = second["line"] as? String ?? ""
        #expect(second["brain"] as? String == "on-device", "\(second)\n\(lb.procs.read("serve.log"))")
        #expect(line.contains("why: ") && line.contains("fell back: homebase failed ("), "\(second)")

        // The settings and keys the page changes are the CLI's: guest settings and guest keys read them back.
        let key = "sk-ant-page0123456789abcdWXYZ"
        let controls = try step(["--step", "controls", "--key", key])
        #expect(controls["ok"] as? Bool == true, "\(controls)\n\(lb.procs.read("serve.log"))")
        #expect((controls["added"] as? String ?? "").contains("sk-ant-•••••WXYZ"), "\(controls)")
        #expect((controls["rings"] as? String ?? "").contains("sk-ant-•••••WXYZ"), "\(controls)")
        #expect((controls["tested"] as? String ?? "").contains("not tested"), "the zero-token check ran, unreachable: \(controls)")
        #expect((controls["offline"] as? String ?? "").contains("offline") && (controls["shortlist"] as? String ?? "").contains("(offline)"),
                "\(controls)")
        #expect((controls["off_loopback"] as? [String])?.isEmpty == true, "\(controls)")
        let runtime = try guest.run(["settings", "get", "external.runtime"])
        #expect(runtime.contains("claude"), "\(runtime)")
        let rings = try guest.run(["keys", "list"])
        #expect(rings.contains("sk-ant-•••••WXYZ") && !rings.contains(key), "\(rings)")
        #expect(!lb.procs.read("serve.log").contains(key), "the key never reaches the log")

        print("page: answer lines: \(first["line"] ?? "") | \(line); screenshots in \(shots)")
        lb.killRelay()
        let down = try step(["--step", "link"])
        #expect(down["ok"] as? Bool == true, "\(down)")
        #expect(down["link"] as? String != "connected", "\(down)")
        #expect(down["advert_left"] as? String == "0", "\(down)")
    }
}
