import Foundation
import Testing

/// `guest join` done while `guest serve` runs: serve links the friend's relay by itself and its
/// next request reaches the friend's Homebase, no restart. Real processes: two relays, the
/// friend's Homebase with the tiny engine, serve and join on one guest, curl as the local tool.
@Suite(.serialized) struct ServeJoinEndToEndTests {
    @Test func aHomebaseJoinedWhileServeRunsAnswersItsNextRequests() throws {
        let (w, hostKey) = try CrossRelayWorld.withFriendsHomebase()
        defer { w.procs.stopAll() }
        try w.initGuestOnB("laptop")

        let port = try Self.startServe(w, "laptop")

        try w.joinAndSelect("laptop", host: hostKey)
        try w.procs.waitUntil(30, "serve to link relay A") {
            w.log("laptop").contains("relay: linked to ws://127.0.0.1:\(w.portA) for a Homebase joined meanwhile")
        }
        // The other commands' links (same device key) replaced serve's: it takes them back a
        // second later. Ask until the friend's Homebase answers ("it arrived at all"), then again.
        var brain = ""
        try w.procs.waitUntil(90, "an answer from the joined Homebase through serve") {
            brain = try Self.ask(w, port)
            return brain == "joined-homebase"
        }
        #expect(try Self.ask(w, port) == "joined-homebase", "\(w.log("laptop"))")
        #expect(w.log("laptop").components(separatedBy: "for a Homebase joined meanwhile").count == 2, "linked once")
        #expect(w.log("laptop").contains("relay: taking the link to ws://127.0.0.1:\(w.portA) back"))
    }

    /// A device with no relay at all when serve starts (no account relay, nothing joined).
    @Test func serveWithNoRelayAtItsStartLinksTheRelayOfAHomebaseJoinedLater() throws {
        let (w, hostKey) = try CrossRelayWorld.withFriendsHomebase()
        defer { w.procs.stopAll() }
        let port = try Self.startServe(w, "nomad")
        #expect(try Self.ask(w, port) != "joined-homebase")
        let joined = try w.guest("nomad", ["join", try w.share(["--models", "tiny"]), "--wait", "30s"] + w.linkFlags)
        #expect(joined.status == 0 && joined.out.contains("joined: models tiny"), "\(joined.err)")
        try w.select("nomad", host: hostKey)
        try w.procs.waitUntil(30, "serve to link relay A") {
            w.log("nomad").contains("relay: linked to ws://127.0.0.1:\(w.portA) since the start")
        }
        try w.procs.waitUntil(90, "an answer from the joined Homebase through serve") { try Self.ask(w, port) == "joined-homebase" }
        #expect(try Self.ask(w, port) == "joined-homebase", "\(w.log("nomad"))")
    }

    /// `guest serve` on `name` with fast join checks and retakes; its port once it listens.
    static func startServe(_ w: CrossRelayWorld, _ name: String) throws -> Int {
        let port = try Processes.freePort()
        try w.procs.start(w.bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)", "--join-check", "200ms",
                                                "--retake-after", "1s"] + w.chatFlags
                            + ["--data-dir", w.procs.work + "/" + name, "--llama-server", w.bin.engine, "--model-path", w.bin.model],
                          log: "serve-\(name).log")
        try w.procs.waitUntil(60, "guest serve") { Processes.canConnect(port) }
        return port
    }

    /// One OpenAI-style request to serve with curl; the brain header of its answer.
    static func ask(_ w: CrossRelayWorld, _ port: Int) throws -> String {
        let body = #"{"model":"default","max_tokens":8,"messages":[{"role":"user","content":"hello"}]}"#
        let r = try w.procs.capture("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "-H", "Content-Type: application/json",
                                                      "-d", body, "http://127.0.0.1:\(port)/v1/chat/completions"])
        let header = r.out.split(separator: "\r\n").first { $0.lowercased().hasPrefix("x-homebase-brain:") }
        return header.map { $0.dropFirst("x-homebase-brain:".count).trimmingCharacters(in: .whitespaces) } ?? "none: \(r.out)"
    }
}
