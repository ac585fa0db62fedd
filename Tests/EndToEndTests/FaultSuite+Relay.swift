import Foundation
import Testing

/// The relay crashes (SIGKILL) and comes back on the same port and data directory: both
/// agents reconnect by themselves, the conversation goes on through the Homebase, a change
/// made while the relay was down reaches the guest, and mail stored before a crash is
/// delivered after it.
extension FaultSuite {
    @Test func relayRestartDuringAConversationLosesNoMail() throws {
        let lb = try Loopback(engine: .llama)
        defer { lb.stopAll() }
        // A second engine for the Homebase to gain and lose: each change is an advert (mail).
        let standInPort = try Processes.freePort()
        try Loopback.startStandIn(lb.procs, port: standInPort, mode: "error", log: "standin.log")
        let standIn = "http://127.0.0.1:\(standInPort)"
        let laptop = try lb.addGuest("laptop")
        try lb.startHomebase()
        try laptop.waitForAdvert()
        try lb.procs.waitUntil(30, "the stand-in engine") { Processes.canConnect(standInPort) }

        let conversation = try laptop.startConversation(log: "laptop-chat.log")
        let first = try conversation.ask("before the relay restarts")
        #expect(first.brain == "homebase", "\(lb.procs.read("laptop-chat.log"))")

        lb.killRelay()
        _ = try lb.homebase(["runtime", "add", standIn])  // while the relay is down
        try lb.startRelay()
        try lb.procs.waitUntil(60, "the Homebase and the guest to reconnect") {
            lb.metric("homebase_relay_connections{state=\"authenticated\"}") == 2
        }
        let second = try conversation.ask("after the relay restarted")
        #expect(second.brain == "homebase", "\(lb.procs.read("laptop-chat.log"))")
        #expect(!second.line.contains("fell back"), "\(second.line)")
        try lb.procs.waitUntil(30, "the advert of the change made while the relay was down") {
            laptop.log.contains(": 2 model(s), held")
        }
        try conversation.end()

        // The guest is offline now. The Homebase loses the stand-in (an advert of 1 model,
        // stored for the guest), then the Homebase stops and the relay crashes again.
        let stored = lb.metric("homebase_relay_mail_total{event=\"stored\"}") ?? 0
        _ = try lb.homebase(["runtime", "remove", standIn])
        try lb.procs.waitUntil(30, "the relay to store the new advert") {
            (lb.metric("homebase_relay_mail_total{event=\"stored\"}") ?? 0) > stored
        }
        lb.killHomebase()
        lb.killRelay()
        try lb.startRelay()
        #expect((lb.metric("homebase_relay_mail_stored") ?? 0) >= 1, "the mailbox is empty after the restart")

        let explain = try laptop.run(["status", "--explain", "--relay-wait", "3s", "--connect-timeout", "2s"])
        #expect(explain.contains("models: tiny\n"), "\(explain)")
        let lastAdvert = laptop.log.split(separator: "\n").last { $0.contains("relay mail: advert") } ?? ""
        #expect(lastAdvert.contains(": 1 model(s), held"), "\(laptop.log)")
    }
}
