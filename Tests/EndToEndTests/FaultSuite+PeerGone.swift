import Foundation
import Glibc
import Testing

/// The far side dies or goes silent (issue 18): the relay says so (`peer-gone`, its liveness
/// probe), and the guest continues on-device at once instead of waiting out a rung. The rungs
/// are set long here, so an answer on-device for the right reason can only come from the
/// relay's word; times are bench-e2e's, never asserted.
extension FaultSuite {
    /// SIGKILL while the Homebase's answer is on screen: the relay sees the socket close and
    /// tells the guest, which continues the answer on-device (the stall rung is a minute away).
    @Test func aHomebaseKilledMidAnswerIsContinuedOnDeviceAtOnce() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "stall"), homebaseArgs: ["--engine-idle-timeout", "5m"])
        defer { lb.stopAll() }
        let conversation = try Self.storyOnScreen(lb, guest, stallTimeout: "60s")
        lb.killHomebase()
        let (line, _) = try Self.storyContinuedOnDevice(lb, conversation, within: 50)
        #expect(line.line.contains("left the relay mid-answer (its connection closed)"), "\(line.line)")
        #expect(guest.log.contains("fallback: homebase failed (runtime unreachable: the Homebase left the relay mid-answer"), "\(guest.log)")
        #expect(!guest.log.contains("timed out"), "\(guest.log)")
        #expect(lb.metric("homebase_relay_peer_gone_total{reason=\"closed\"}") ?? 0 >= 1)
        try conversation.end()
    }

    /// A frozen Homebase (SIGSTOP) with a fresh advert: the relay's probe finds it silent on the
    /// first question (the accept rung is a minute away); the guest cools it down, so the next
    /// `guest chat` (another process) goes on-device without asking, and `status` says why.
    /// With the cooldown off, the next question is the relay's `not-here` (it closed the host).
    @Test func aFrozenHomebaseIsFoundSilentByTheRelaysProbe() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "stall"))
        defer { lb.stopAll() }
        lb.signalHomebase(SIGSTOP)
        defer { lb.signalHomebase(SIGCONT) }
        let (first, line) = try guest.chat("hello, frozen host", ["--accept-timeout": "60s"], within: 50)
        #expect(line.brain == "on-device", "\(first)")
        #expect(line.line.contains("left the relay mid-answer (it stopped answering the relay)"), "\(line.line)")
        let status = try guest.status()
        #expect((status["reason"] as? String)?.contains("own Homebase cooled down since") == true, "\(status)")
        #expect((status["reason"] as? String)?.contains("it stopped answering the relay") == true, "\(status)")
        let explained = try guest.run(["status", "--explain", "--relay-wait", "2s", "--connect-timeout", "2s"])
        #expect(explained.contains("cooled down since"), "\(explained)")
        let (second, again) = try guest.chat("still there?", ["--accept-timeout": "60s"], within: 50)
        #expect(again.brain == "on-device", "\(second)")
        #expect(!again.line.contains("fell back"), "the cooled-down Homebase was asked: \(again.line)")
        let (third, uncooled) = try guest.chat("and now?", ["--accept-timeout": "60s", "--cooldown": "0s"], within: 50)
        #expect(uncooled.brain == "on-device", "\(third)")
        #expect(uncooled.line.contains("not connected to the relay"), "\(uncooled.line)")
        #expect(!guest.log.contains("timed out"), "\(guest.log)")
        #expect(lb.metric("homebase_relay_liveness_probes_total{outcome=\"unanswered\"}") ?? 0 >= 1)
    }

    /// The Homebase's network goes silent without a FIN (a proxy in its path stops forwarding,
    /// closing nothing), its advert still fresh: the first question is on-device through the
    /// relay's probe, the next without asking it (cooled down).
    @Test func aBlackHoledHomebaseIsAnsweredOnDeviceFromTheFirstQuestion() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "stall"), viaProxy: true)
        defer { lb.stopAll() }
        try lb.blackHole()
        for (i, question) in ["hello?", "anyone?"].enumerated() {
            let (out, line) = try guest.chat(question, ["--accept-timeout": "60s"], within: 50)
            #expect(line.brain == "on-device", "question \(i + 1): \(out)")
            #expect(out.count > line.line.count + 1, "no answer text before the line")
            if i == 0 {
                #expect(line.line.contains("left the relay mid-answer (it stopped answering the relay)"), "\(line.line)")
            } else {
                #expect(!line.line.contains("fell back"), "the cooled-down Homebase was asked: \(line.line)")
            }
        }
        #expect(!guest.log.contains("timed out"), "\(guest.log)")
    }
}

extension FaultSuite {
    /// The Homebase freezes (SIGSTOP) while its answer is on screen; the stall rung is a minute
    /// away. After 2 s of silence the guest sends the Homebase an empty live frame, the relay
    /// probes it, finds it silent and says so: the answer is continued on-device.
    @Test func aHomebaseFrozenMidAnswerIsFoundByTheRelayAfterTheGuestsNudge() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "stall"),
                                              homebaseArgs: ["--engine-idle-timeout", "5m", "--keep-alive", "1h"])
        defer { lb.stopAll() }
        let conversation = try Self.storyOnScreen(lb, guest, stallTimeout: "60s")
        lb.signalHomebase(SIGSTOP)
        defer { lb.signalHomebase(SIGCONT) }
        let (line, _) = try Self.storyContinuedOnDevice(lb, conversation, within: 50)
        #expect(line.line.contains("left the relay mid-answer (it stopped answering the relay)"), "\(line.line)")
        #expect(!guest.log.contains("timed out"), "\(guest.log)")
        try conversation.end()
    }
}
