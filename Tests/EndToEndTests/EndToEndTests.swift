import Foundation
import Testing

/// The product on loopback, as real processes: relay, Homebase on llama-server, guest.
/// Every wait of the programs is shortened by their flags; the bounds here only stop a hung
/// test, they never assert speed.
@Suite(.serialized) struct EndToEndTests {
    @Test func answerThroughTheRelayThenOnDeviceAfterTheHomebaseIsKilled() throws {
        let bin = try Binaries.locate()
        let procs = try Processes()
        defer { procs.stopAll() }
        let relayPort = try Processes.freePort(), enginePort = try Processes.freePort()
        let relay = "ws://127.0.0.1:\(relayPort)"
        try procs.start(bin.path("homebase-relay"),
                        ["serve", "--listen", "127.0.0.1:\(relayPort)", "--data-dir", procs.work + "/relay", "--metrics-listen", "off"], log: "relay.log")
        try procs.start(bin.engine, ["--model", bin.model, "--host", "127.0.0.1", "--port", "\(enginePort)",
                                     "--alias", "tiny"], log: "engine.log")
        try procs.waitUntil(30, "the relay") { Processes.canConnect(relayPort) }
        // llama-server listens only once its model is loaded; `runtime add` probes it for real.
        try procs.waitUntil(60, "llama-server") { Processes.canConnect(enginePort) }

        let hb = [bin.path("homebase"), "--data-dir", procs.work + "/host"]
        let g = ["--data-dir", procs.work + "/guest", "--llama-server", bin.engine, "--model-path", bin.model]
        func homebase(_ args: [String]) throws -> String {
            let r = try procs.run(hb[0], Array(hb.dropFirst()) + args)
            guard r.status == 0 else { throw Failure("homebase \(args.first ?? "") exited \(r.status)") }
            return r.out
        }
        func guest(_ args: [String]) throws -> String {
            let r = try procs.run(bin.path("guest"), args + g)
            guard r.status == 0 else { throw Failure("guest \(args.first ?? "") exited \(r.status): \(r.out)") }
            return r.out
        }
        func field(_ text: String, _ prefix: String) throws -> String {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
                throw Failure("no \(prefix) in \(text)")
            }
            return String(line.dropFirst(prefix.count))
        }

        let initOut = try homebase(["init", "--name", "e2e-homebase"])
        let account = try field(initOut, "account key: "), hostRecord = try field(initOut, "device record: ")
        // llama-server accepts connections while it is still loading the model (/health answers
        // 503 then), and `runtime add` refuses an engine that is not ready: retry until it is.
        try procs.waitUntil(60, "homebase runtime add to succeed") {
            ((try? procs.run(hb[0], Array(hb.dropFirst()) + ["runtime", "add", "http://127.0.0.1:\(enginePort)"]))?.status ?? 1) == 0
        }
        let guestRecord = String(try guest(["init", "--name", "e2e-laptop", "--account", account]).prefix { $0 != "\n" })
        _ = try homebase(["devices", "add", guestRecord])
        _ = try guest(["relay", "set", relay, "--homebase", hostRecord])
        _ = try guest(["settings", "set", "model.source", "external"])
        _ = try guest(["settings", "set", "ollama.model", "tiny"])

        let host = try procs.start(hb[0], Array(hb.dropFirst()) + ["run", "--relay", relay, "--advert-pulse", "2s",
                                                                    "--reload-interval", "200ms"], log: "homebase.log")
        try procs.waitUntil(30, "the Homebase's advert") { procs.read("homebase.log").contains("to 1 device") }

        let chatFlags = ["--max-tokens", "16", "--relay-wait", "3s", "--connect-timeout", "2s",
                         "--accept-timeout", "3s", "--first-output-timeout", "30s", "--stall-timeout", "10s"]
        let first = try guest(["chat"] + chatFlags + ["hello through the relay"])
        let firstLine = try AnswerLine(first)
        #expect(firstLine.brain == "homebase", "\(first)\nguest.log: \(procs.read("guest/guest.log"))")
        #expect(!firstLine.line.contains("fell back"), "\(firstLine.line)")
        #expect(first.count > firstLine.line.count + 1, "no answer text before the line")

        let status = try guest(["status", "--explain", "--relay-wait", "2s"])
        #expect(status.contains("relay link:    connected to \(relay)"), "\(status)")
        #expect(status.contains("last advert:") && status.contains("models: tiny"), "\(status)")

        procs.kill(host)
        let second = try guest(["chat"] + chatFlags + ["are you still there"])
        let secondLine = try AnswerLine(second)
        #expect(secondLine.brain == "on-device", "\(second)")
        #expect(secondLine.line.contains("fell back: homebase failed"), "\(secondLine.line)")
        // The relay's `not-here`, at once: not a watchdog rung.
        #expect(secondLine.line.contains("the Homebase is not connected to the relay"), "\(secondLine.line)")
    }

    @Test func nothingConfiguredAnswersOnDeviceOrWithTheFloorNotice() throws {
        let bin = try Binaries.locate()
        let procs = try Processes()
        defer { procs.stopAll() }
        let r = try procs.run(bin.path("guest"), ["chat", "--data-dir", procs.work + "/guest", "--max-tokens", "8", "hello"])
        #expect(r.status == 0, "\(r.out)")
        let line = try AnswerLine(r.out)
        #expect(["on-device", "no"].contains(line.brain), "\(line.line)")  // "no brain (floor notice)"
        #expect(!line.line.contains("homebase"), "\(line.line)")
    }
}
