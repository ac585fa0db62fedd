import Foundation
import Testing

/// The replica repair: the Homebase keeps one conversation replica only (`--replica-size 1`),
/// so a second device's conversation pushes out the first device's, in memory and on disk.
/// The first device's next turn extends a prefix the Homebase no longer holds: `diverged`,
/// one sync-delta from the empty prefix, one retry, and the Homebase answers.
extension FaultSuite {
    @Test func divergedReplicaIsReconciledAndTheHomebaseAnswers() throws {
        let lb = try Loopback(engine: .llama)
        defer { lb.stopAll() }
        let laptop = try lb.addGuest("laptop")
        let desktop = try lb.addGuest("desktop")
        try lb.startHomebase(["--replica-size", "1"], devices: 2)
        try laptop.waitForAdvert()
        try desktop.waitForAdvert()

        let conversation = try laptop.startConversation(log: "laptop-chat.log")
        let first = try conversation.ask("first turn of the laptop's conversation")
        #expect(first.brain == "homebase", "\(lb.procs.read("laptop-chat.log"))")

        let other = try desktop.chat("the desktop's own conversation")
        #expect(other.line.brain == "homebase", "\(other.out)")

        let second = try conversation.ask("second turn, on a replica the Homebase forgot")
        try conversation.end()
        #expect(second.brain == "homebase", "\(lb.procs.read("laptop-chat.log"))")
        #expect(!second.line.contains("fell back"), "\(second.line)")
        #expect(laptop.log.contains("diverged: sending the sync-delta of 1 message(s) and retrying once"), "\(laptop.log)")
        // `status` reads what the running Homebase rewrites every 200 ms.
        try lb.procs.waitUntil(30, "the Homebase to count one diverged and three answers") {
            let status = try lb.homebase(["status"])
            return status.contains("diverged 1") && status.contains("done 3")
        }
    }
}
