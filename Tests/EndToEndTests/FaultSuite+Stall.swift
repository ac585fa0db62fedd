import Foundation
import Glibc
import Testing

/// Stall rungs that do not race, and a Homebase back fast after a relay outage (issue 18).
extension FaultSuite {
    /// The engine goes silent mid-answer. The Homebase's engine idle limit is below the guest's
    /// stall rung, so the guest hears the Homebase's `host_error` (which names the limit) and
    /// continues on-device at once; its own rung never fires.
    @Test func engineStallReachesTheGuestAsTheHomebasesErrorBeforeItsRung() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "stall"), homebaseArgs: ["--engine-idle-timeout", "500ms"])
        defer { lb.stopAll() }

        let (out, line) = try guest.chat("tell me a story", ["--stall-timeout": "60s"], within: 60)
        Self.expectContinuedOnDevice(out, line)
        #expect(line.line.contains("remote error host_error"), "\(line.line)")
        #expect(guest.log.contains("the engine sent nothing for 500 ms"), "\(guest.log)")
        #expect(!guest.log.contains("timed out: stall"), "\(guest.log)")
    }

    /// The engine accepted the request but works long on the prompt before its first token
    /// (longer than the guest's first-output rung). The Homebase's keep-alives tell the guest it
    /// is alive, so the Homebase answers, whole, instead of the guest giving up on a live path.
    @Test func aSlowPrefillIsKeptAliveAndAnsweredByTheHomebase() throws {
        // The stand-in `slow`: 3 s before the first token.
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "slow"), homebaseArgs: ["--keep-alive", "100ms"])
        defer { lb.stopAll() }

        let (out, line) = try guest.chat("a long prompt", ["--first-output-timeout": "1500ms", "--waiting-after": "300ms"],
                                         within: 60)
        #expect(line.brain == "homebase", "\(line.line)\n\(guest.log)")
        #expect(out.hasPrefix(standInPartial + "the end."), "\(out)")
        #expect(!line.line.contains("fell back"), "\(line.line)")
        // The honest dim line: the wait is named on stderr (stdout stays the answer), and the
        // first token counts from the command's start with the link's set-up shown apart.
        #expect(lb.procs.read("stderr.log").contains("waiting for the Homebase…"), "\(lb.procs.read("stderr.log"))")
        #expect(!out.contains("waiting for"), "\(out)")
        #expect(line.line.contains("first token ") && line.line.contains(" (link "), "\(line.line)")
    }

    /// The relay crashes and comes back: the Homebase's first retry is the fast one (250 ms,
    /// jittered down; the old schedule started at 500 ms and doubled), and it reconnects.
    @Test func theHomebaseRetriesALostRelayFastAndReconnects() throws {
        let lb = try Loopback(engine: .standIn(mode: "error"))
        defer { lb.stopAll() }
        _ = try lb.addGuest("laptop")  // an advert's recipient: startHomebase waits for its advert
        try lb.startHomebase()
        lb.killRelay()
        try lb.procs.waitUntil(30, "the Homebase to see the link lost") {
            lb.procs.read("homebase.log").contains("relay link lost; retrying in ")
        }
        Thread.sleep(forTimeInterval: 2)  // an outage of a few seconds (not measured)
        try lb.startRelay()
        try lb.procs.waitUntil(60, "the Homebase to reconnect") {
            lb.procs.read("homebase.log").components(separatedBy: "connected to the relay").count == 3
        }
        let log = lb.procs.read("homebase.log")
        let retry = log.components(separatedBy: "relay link lost; retrying in ")[1].prefix { $0 != " " }
        #expect(Double(retry).map { $0 <= 0.25 } == true, "first retry in \(retry) s: \(log)")
    }
}

extension FaultSuite {
    /// The relay freezes (SIGSTOP: connections stay up, nothing is forwarded or answered) while
    /// the Homebase's answer is on screen; the guest's stall rung fires. Its `cancel` cannot be
    /// settled on the frozen link (5 s live timeout), yet the on-device fallback starts first:
    /// the guest's log has the fallback before the cancel's outcome.
    @Test func aCancelOnAFrozenRelayDoesNotHoldUpTheFallback() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "stall"), homebaseArgs: ["--engine-idle-timeout", "5m"])
        defer { lb.stopAll() }
        let conversation = try Self.storyOnScreen(lb, guest, stallTimeout: "1s")
        let relay = try #require(lb.relayProcess)
        Glibc.kill(relay.processIdentifier, SIGSTOP)
        defer { Glibc.kill(relay.processIdentifier, SIGCONT) }
        _ = try Self.storyContinuedOnDevice(lb, conversation, within: 120)
        Glibc.kill(relay.processIdentifier, SIGCONT)
        try Self.expectFallbackBeforeTheCancel(lb, guest)
        try conversation.end()
    }
}

extension FaultSuite {
    /// The laptop's own network goes silent mid-answer (the proxy stops forwarding the guest's
    /// connection, the newest, closing nothing; the Homebase's stays up): the stall rung fires,
    /// its `cancel` goes onto the dead link (5 s live timeout), and the on-device fallback starts
    /// first: the guest's log has the fallback before the cancel's outcome.
    @Test func aCancelOnTheGuestsBlackHoledLinkDoesNotHoldUpTheFallback() throws {
        let (lb, guest) = try Loopback.laptop(engine: .standIn(mode: "stall"), viaProxy: true,
                                              homebaseArgs: ["--engine-idle-timeout", "5m"])
        defer { lb.stopAll() }
        let conversation = try Self.storyOnScreen(lb, guest, stallTimeout: "1s")
        try lb.blackHole(newest: true)
        _ = try Self.storyContinuedOnDevice(lb, conversation, within: 120)
        try Self.expectFallbackBeforeTheCancel(lb, guest)
        try conversation.end()
    }
}
