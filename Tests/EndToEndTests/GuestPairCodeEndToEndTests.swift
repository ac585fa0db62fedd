import Foundation
import Testing

/// `guest pair` with no code, with real processes on a real relay: a paired laptop asks the
/// Homebase for a code, a third device joins with it, and the laptop prints the same
/// confirmation as the joiner and the Homebase. A grantee (a friend's device that joined a share)
/// asking is refused by the Homebase; an unpaired guest gets the usage explanation; a stopped
/// Homebase is named as the reason.
@Suite(.serialized) struct GuestPairCodeEndToEndTests {
    @Test func aPairedLaptopGetsACodeAndShowsTheJoinersConfirmation() throws {
        let s = try PairScene.withRunningHomebase()
        defer { s.stop() }
        try s.pairFromHomebase("laptop")

        let asking = try s.procs.start(s.bin.path("guest"), ["pair", "--wait", "60s", "--tries", "2", "--connect-timeout", "5s"]
                                       + s.guestArgs("laptop"), log: "laptop-pair.log")
        try s.procs.waitUntil(30, "the laptop's code") { s.procs.read("laptop-pair.log").contains("hbpair1-") }
        let printed = s.procs.read("laptop-pair.log")
        let code = try s.code(printed)
        #expect(printed.contains("on the new device run: guest pair -"), "\(printed)")
        #expect(printed.contains("2 wrong tries burn it"), "\(printed)")

        let confirmation = try s.phoneJoins(askedFor: code, by: asking)
        let status = try s.homebase(["status"])
        #expect(status.contains("last pairing: \"phone\"") && status.contains("confirmation \(confirmation)"), "\(status)")
        // The code travelled sealed: neither program logged it.
        let secretPart = String(code.dropFirst(8).prefix(40))
        for log in ["homebase.log", "laptop/guest.log", "phone/guest.log"] {
            #expect(!s.procs.read(log).contains(secretPart), "\(log) holds the code")
        }
    }

    @Test func aGranteeIsRefusedAnUnpairedGuestIsToldWhereAndAStoppedHomebaseIsNamed() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        let (account, record) = try s.initHost()

        // Unpaired: today's explanation, a usage error.
        let unpaired = try s.guestRun("nobody", ["pair"])
        #expect(unpaired.status == 2 && unpaired.err.contains("run `homebase pair`"), "\(unpaired.err)")

        try s.startHost()
        try s.pairFromHomebase("laptop")
        // A friend's device joins a share, then is set up (by hand) as if the Homebase were its own.
        let invite = String(try s.homebase(["share", "--relay", s.relay, "--models", "tiny"]).prefix { $0 != "\n" })
        let join = try s.guestRun("friend", ["join", invite, "--as", "friend", "--wait", "30s",
                                             "--relay-wait", "3s", "--connect-timeout", "2s"])
        #expect(join.status == 0 && join.out.contains("joined"), "\(join.out)\(join.err)")
        try s.guest("friend", ["init", "--account", account])
        try s.guest("friend", ["relay", "set", s.relay, "--homebase", record])
        let grantee = try s.guestRun("friend", ["pair", "--no-wait", "--connect-timeout", "5s"])
        #expect(grantee.status == 1 && grantee.err.contains("refused to issue a code")
                && grantee.err.contains("not a device of the Homebase's account"), "\(grantee.err)\(grantee.out)")
        #expect(!grantee.out.contains("hbpair1-"))

        // The Homebase stopped: said so, exit 1.
        s.stopHost()
        let offline = try s.guestRun("laptop", ["pair", "--no-wait", "--connect-timeout", "5s"])
        #expect(offline.status == 1 && offline.err.contains("`homebase run` must be running"), "\(offline.err)")
    }
}
