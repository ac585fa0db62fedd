import Foundation
import Testing
import TestSupport

/// A workstation going to sleep says goodbye (issue 18): `homebase run` under a STAND-IN logind
/// (Tests/TestSupport/peers/logind_standin.py, on a dbus-daemon of its own), the real
/// relay, guest and engine. Time bounds only stop a hung test.
@Suite(.serialized) struct SleepEndToEndTests {
    @Test func aSleepingHomebaseSendsTheGuestOnDeviceAndAnswersAgainOnResume() throws {
        let lb = try Loopback(engine: .llama)
        defer { lb.stopAll() }
        let (_, logind) = try lb.procs.startInteractive("/usr/bin/python3", [testsFile("TestSupport/peers/logind_standin.py")],
                                                        log: "logind.log")
        var bus = ""
        try lb.procs.waitUntil(30, "the stand-in logind") {
            guard let line = lb.procs.read("logind.log").split(separator: "\n").first(where: { $0.hasPrefix("bus ") }) else { return false }
            bus = String(line.dropFirst(4))
            return true
        }
        let guest = try lb.addGuest("laptop")
        try lb.startHomebase(["--logind-bus", bus])
        try guest.waitForAdvert()
        try lb.procs.waitUntil(30, "the delay lock") { lb.procs.read("logind.log").contains("inhibit 1 sleep homebase delay") }
        let (before, line) = try guest.chat("hello before sleep", within: 120)
        #expect(line.brain == "homebase", "\(before)")

        try logind.write(contentsOf: Data("sleep\n".utf8))
        try lb.procs.waitUntil(30, "the lock released") { lb.procs.read("logind.log").contains("released 1") }
        #expect(lb.procs.read("homebase.log").contains("sleep: away advert"), "\(lb.procs.read("homebase.log"))")
        var status: [String: Any] = [:]
        // The away message after the empty advert: "asleep", not "lists no models" (an old
        // Homebase sends none, and this wait runs out).
        try lb.procs.waitUntil(30, "the away advert and its away message at the guest") {
            status = try guest.status()
            return (status["reason"] as? String)?.contains("own Homebase is asleep (said goodbye at ") == true
        }
        #expect(status["route"] as? String == "on-device", "\(status)")
        let explained = try guest.run(["status", "--explain", "--relay-wait", "2s", "--connect-timeout", "2s"])
        #expect(explained.contains("asleep (said goodbye at "), "\(explained)")
        let (asleep, awayLine) = try guest.chat("hello while it sleeps", within: 120)
        #expect(awayLine.brain == "on-device", "\(asleep)")
        #expect(!awayLine.line.contains("fell back"), "the sleeping Homebase was tried: \(awayLine.line)")

        try logind.write(contentsOf: Data("wake\n".utf8))
        try lb.procs.waitUntil(30, "a new delay lock") { lb.procs.read("logind.log").contains("inhibit 2 sleep homebase delay") }
        try lb.procs.waitUntil(30, "the Homebase's advert at the guest again") { try guest.status()["route"] as? String == "external" }
        let (after, backLine) = try guest.chat("hello after resume", within: 120)
        #expect(backLine.brain == "homebase", "\(after)")
    }
}
