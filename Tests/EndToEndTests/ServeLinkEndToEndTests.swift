import Foundation
import Glibc
import Testing

/// One process of a data directory holds the relay link: `guest chat` and `guest status` beside
/// a running `guest serve` go through serve (`serve.json`) instead of linking, which would
/// replace serve's link (the relay keeps one per device key). Real processes: the relay, the
/// own Homebase on the tiny engine, serve, chat, status; the relay's replacement counter and
/// the guest's log say who linked.
@Suite(.serialized) struct ServeLinkEndToEndTests {
    static let replaced = "homebase_relay_connections_replaced_total"

    @Test func chatBesideServeAnswersThroughServeAndLeavesServesLinkAlone() throws {
        let (lb, guest, serve) = try Self.laptopWithServe()
        defer { lb.stopAll() }
        let before = lb.metric(Self.replaced)

        let (out, line) = try guest.chat("hello through serve")
        #expect(line.brain == "homebase", "\(out)\n\(guest.log)")
        #expect(guest.log.contains("chat: answered through guest serve (pid \(serve.processIdentifier)"), "\(guest.log)")

        // Interactive: every turn through serve, the conversation kept.
        let talk = try guest.startConversation(log: "conversation.log")
        #expect(try talk.ask("first turn").brain == "homebase", "\(lb.procs.read("conversation.log"))")
        #expect(try talk.ask("second turn").brain == "homebase", "\(lb.procs.read("conversation.log"))")
        try talk.end()

        let status = try guest.status()
        let relay = status["relay"] as? [String: Any] ?? [:]
        #expect(relay["linkState"] as? String == "serve", "\(status)")
        #expect(status["route"] as? String == "external", "\(status)")

        #expect(lb.metric(Self.replaced) == before, "a guest command replaced serve's link\n\(guest.log)")
        #expect(!guest.log.contains("taking the link"), "\(guest.log)")
        #expect(guest.log.components(separatedBy: "chat: answered through guest serve").count == 4, "\(guest.log)")

        // SIGTERM: serve withdraws its announcement.
        Glibc.kill(serve.processIdentifier, SIGTERM)
        try lb.procs.waitUntil(60, "serve to exit") { !serve.isRunning }
        #expect(!FileManager.default.fileExists(atPath: guest.directory + "/serve.json"))
    }

    /// A `serve.json` left by a serve that died (SIGKILL): chat opens its own link, as before.
    @Test func chatWithAStaleServeFileUsesItsOwnLink() throws {
        let (lb, guest, serve) = try Self.laptopWithServe()
        defer { lb.stopAll() }
        lb.procs.kill(serve)
        try lb.procs.waitUntil(30, "serve to die") { !serve.isRunning }
        #expect(FileManager.default.fileExists(atPath: guest.directory + "/serve.json"), "a SIGKILL leaves it")

        let (out, line) = try guest.chat("hello without serve")
        #expect(line.brain == "homebase", "\(out)\n\(guest.log)")
        #expect(guest.log.contains("chat: serve.json names pid \(serve.processIdentifier), which is not a running guest serve"),
                "\(guest.log)")
        #expect(!guest.log.contains("chat: asking guest serve"), "\(guest.log)")
    }

    /// A command that must mail (a synced model choice) links beside serve and replaces its
    /// link; when it exits it tells serve, which takes the link back without waiting out
    /// `--retake-after` (10 minutes here), and answers through the Homebase again.
    @Test func serveTakesItsLinkBackAsSoonAsAMailingCommandExits() throws {
        let (lb, guest, serve) = try Self.laptopWithServe(retakeAfter: "10m")
        defer { lb.stopAll() }
        let before = lb.metric(Self.replaced) ?? 0

        _ = try guest.run(["settings", "set", "ollama.model", lb.model, "--relay-wait", "2s", "--connect-timeout", "2s"])
        #expect((lb.metric(Self.replaced) ?? 0) > before, "the setting linked beside serve")
        #expect(guest.log.contains("told guest serve (pid \(serve.processIdentifier)) to take its link back"), "\(guest.log)")
        try lb.procs.waitUntil(30, "serve to take its link back") { guest.log.contains("relay: taking the link to") }
        let (out, line) = try guest.chat("hello again through serve")
        #expect(line.brain == "homebase", "\(out)\n\(guest.log)")
    }

    /// A serve that is running but does not answer (frozen): chat waits `--serve-wait`, says
    /// so in its log and answers on its own path. No relay here: the on-device tiny model answers.
    @Test func aServeThatDoesNotAnswerLeavesChatToItsOwnPath() throws {
        let nomad = try OnDeviceServe(name: "nomad") { bin, procs, flags in
            let zero = try procs.capture(bin.path("guest"), ["chat", "--serve-wait", "0", "hi"] + flags)
            #expect(zero.status == 2 && zero.err.contains("--serve-wait takes a duration"), "\(zero.err)")
        }
        defer { nomad.stop() }
        let (bin, procs, flags, dir, port, serve) = (nomad.bin, nomad.procs, nomad.flags, nomad.directory, nomad.port, nomad.process)
        procs.freeze(serve)
        defer { procs.thaw(serve) }
        let r = try procs.run(bin.path("guest"), ["chat", "--serve-wait", "300ms", "--max-tokens", "8", "hello"] + flags)
        let log = (try? String(contentsOfFile: dir + "/guest.log", encoding: .utf8)) ?? ""
        #expect(r.status == 0, "\(r.out)")
        #expect(try AnswerLine(r.out).brain == "on-device", "\(r.out)")
        #expect(log.contains("chat: guest serve (pid \(serve.processIdentifier), http://127.0.0.1:\(port)) did not answer"), "\(log)")
        #expect(!log.contains("chat: answered through guest serve"), "\(log)")
    }

    /// `guest serve` on the guest's data directory, relay waits of the chat tests; waits for
    /// `serve.json` (written once serve listens, after its link read the relay's backlog).
    /// A llama engine, the own Homebase adverting to a laptop, and `guest serve` on the laptop.
    static func laptopWithServe(engine: Loopback.Engine = .llama, retakeAfter: String = "5s") throws -> (Loopback, Guest, Process) {
        let (lb, guest) = try Loopback.laptop(engine: engine)
        do {
            return (lb, guest, try startServe(lb, guest, retakeAfter: retakeAfter))
        } catch {
            lb.stopAll()
            throw error
        }
    }

    static func startServe(_ lb: Loopback, _ guest: Guest, retakeAfter: String = "5s") throws -> Process {
        let port = try Processes.freePort()
        let waits = Guest.chatWaits.filter { $0.name != "--max-tokens" }.flatMap { [$0.name, $0.value] }
        let p = try lb.procs.start(lb.bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)", "--retake-after", retakeAfter]
                                   + waits + guest.globalFlags, log: "serve.log")
        try lb.procs.waitUntil(60, "guest serve and its serve.json") {
            Processes.canConnect(port) && FileManager.default.fileExists(atPath: guest.directory + "/serve.json")
        }
        return p
    }
}
