import Foundation
import Pairing
import Testing

/// Pairing a second device with real processes on a real relay: it joins and routes to the
/// Homebase at once, both sides show the same confirmation, and every bad code fails with its
/// own clear error (mistyped and expired before any network; forged, wrong, reused, burnt at
/// the Homebase; no code at all says where to get one).
@Suite(.serialized) struct PairingEndToEndTests {
    @Test func aPairedDeviceRoutesToTheHomebaseAndBothShowTheSameConfirmation() throws {
        let s = try PairScene(engine: true)
        defer { s.stop() }
        _ = try s.initHost()
        try s.addRuntime()
        try s.startHost()
        // `homebase pair` waits for the new device and prints the confirmation.
        let pairing = try s.procs.start(s.bin.path("homebase"), s.hostArgs + ["pair", "--relay", s.relay], log: "pair.log")
        try s.procs.waitUntil(30, "the code") { s.procs.read("pair.log").contains("hbpair1-") }
        let code = try s.code(s.procs.read("pair.log"))

        let joined = try s.guest("laptop", ["pair", code, "--name", "laptop", "--wait", "30s"])
        let confirmation = try s.field(joined, "confirmation: ").prefix(9)
        try s.procs.waitUntil(30, "homebase pair to finish") { !pairing.isRunning }
        #expect(pairing.terminationStatus == 0)
        #expect(s.procs.read("pair.log").contains("confirmation: \(confirmation)"), "\(s.procs.read("pair.log"))\n\(joined)")
        #expect(joined.contains("the Homebase's models are on file"), "\(joined)")

        let devices = try s.guest("laptop", ["devices", "--relay-wait", "5s"])
        #expect(devices.contains("roster version 2, 2 device(s)"), "\(devices)")
        #expect(devices.contains("laptop  (this device)") && devices.contains("e2e-homebase  (Homebase, in use)"), "\(devices)")
        #expect(try s.homebase(["devices", "list"]).contains("laptop"))

        // Right after pairing: routed to the own Homebase (no relay set, no record copied by hand).
        try s.guest("laptop", ["settings", "set", "model.source", "external"])
        try s.guest("laptop", ["settings", "set", "ollama.model", "tiny"])
        let answer = try AnswerLine(try s.guest("laptop", ["chat"] + RosterEndToEndTests.chat + ["hello from a paired laptop"]))
        #expect(answer.brain == "homebase", "\(answer.line)\n\(s.procs.read("laptop/guest.log"))")

        // Single use: the same code on another device is refused as used.
        let again = try s.guestRun("phone", ["pair", code, "--wait", "30s"])
        #expect(again.status == 1 && again.err.contains("already used"), "\(again.err)")
        let status = try s.homebase(["status"])
        #expect(status.contains("roster version 2") && status.contains("last pairing: \"laptop\"")
                && status.contains("confirmation \(confirmation)"), "\(status)")
    }

    @Test func everyBadCodeFailsWithItsOwnError() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        _ = try s.initHost()

        // No code: where to get one. Exit 2 (a usage error).
        let none = try s.guestRun("g", ["pair"])
        #expect(none.status == 2 && none.err.contains("run `homebase pair`"), "\(none.err)")

        let good = try s.code(try s.homebase(["pair", "--relay", s.relay, "--no-wait", "--tries", "3"]))
        // Mistyped: one character changed; refused before any network, nothing created.
        var chars = Array(good)
        chars[40] = chars[40] == "a" ? "b" : "a"
        let typo = try s.guestRun("g", ["pair", String(chars)])
        #expect(typo.status == 1 && typo.err.contains("mistyped"), "\(typo.err)")
        #expect(!FileManager.default.fileExists(atPath: s.procs.work + "/g/identity"))

        // Expired: refused locally, before any network.
        let short = try s.code(try s.homebase(["pair", "--relay", s.relay, "--no-wait", "--valid", "1ms"]))
        Thread.sleep(forTimeInterval: 0.01)
        let expired = try s.guestRun("g", ["pair", short])
        #expect(expired.status == 1 && expired.err.contains("expired"), "\(expired.err)")

        // The Homebase not running: said so.
        let offline = try s.guestRun("g", ["pair", good, "--wait", "10s"])
        #expect(offline.status == 1 && offline.err.contains("not connected to the relay"), "\(offline.err)")

        try s.startHost()
        // Forged: the same code id and keys with another secret (a valid checksum): wrong code,
        // counted; the third wrong try burns the code, and then even the right code is refused.
        var forged = try PairingCode(parsing: good)
        forged.secret = .repeating(7)
        let first = try s.guestRun("g", ["pair", forged.text, "--wait", "30s"])
        #expect(first.status == 1 && first.err.contains("wrong code; 2 tries left"), "\(first.err)")
        _ = try s.guestRun("g", ["pair", forged.text, "--wait", "30s"])
        let third = try s.guestRun("g", ["pair", forged.text, "--wait", "30s"])
        #expect(third.err.contains("burnt"), "\(third.err)")
        let burnt = try s.guestRun("g", ["pair", good, "--wait", "30s"])
        #expect(burnt.status == 1 && burnt.err.contains("burnt"), "\(burnt.err)")

        // Unknown: a code this Homebase never issued (another code id).
        var unknown = try PairingCode(parsing: good)
        unknown.codeID = .repeating(1)
        let stranger = try s.guestRun("g", ["pair", unknown.text, "--wait", "30s"])
        #expect(stranger.status == 1 && stranger.err.contains("does not know this code"), "\(stranger.err)")

        // Expired at the Homebase (the guest's clock is not the judge): a code valid for 1 s is
        // re-stamped with a later expiry by its holder; the Homebase still refuses it.
        let soon = try s.code(try s.homebase(["pair", "--relay", s.relay, "--no-wait", "--valid", "1s"]))
        Thread.sleep(forTimeInterval: 1.2)
        var stretched = try PairingCode(parsing: soon)
        stretched.expiresMs += 3_600_000
        let late = try s.guestRun("g", ["pair", stretched.text, "--wait", "30s"])
        #expect(late.status == 1 && late.err.contains("expired"), "\(late.err)")
        #expect(try s.homebase(["devices", "list"]).split(separator: "\n").count == 1)  // nobody joined
    }
}
