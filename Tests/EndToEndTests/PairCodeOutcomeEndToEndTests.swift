import Foundation
import Pairing
import Testing

/// `guest pair` with no code learns from the Homebase what became of its code, with real
/// processes on a real relay: burnt by three wrong tries → the asker says so at once (not at the
/// expiry), exit 1; used → the asker names the joiner from the Homebase's notice.
@Suite(.serialized) struct PairCodeOutcomeEndToEndTests {
    /// A Homebase, a paired laptop asking for a code, the code, and a forgery of it (wrong secret).
    func laptopAsking() throws -> (PairScene, Process, String, PairingCode) {
        let s = try PairScene.withRunningHomebase()
        do {
            try s.pairFromHomebase("laptop")
            let (asking, good) = try ask(s, log: "laptop-pair.log")
            var forged = try PairingCode(parsing: good)
            forged.secret = .repeating(7)
            return (s, asking, good, forged)
        } catch {
            s.stop()
            throw error
        }
    }

    /// Starts `guest pair` (no code) on the laptop and returns it with the code it printed.
    func ask(_ s: PairScene, log: String) throws -> (Process, String) {
        // The code stays valid an hour: an asker that only learnt at the expiry would still be waiting.
        let asking = try s.procs.start(s.bin.path("guest"), ["pair", "--valid", "60m", "--tries", "3", "--connect-timeout", "5s"]
                                       + s.guestArgs("laptop"), log: log)
        try s.procs.waitUntil(30, "the laptop's code") { s.procs.read(log).contains("hbpair1-") }
        return (asking, try s.code(s.procs.read(log)))
    }

    @Test func threeWrongTriesBurnTheCodeAndTheAskerSaysSo() throws {
        let (s, asking, _, forged) = try laptopAsking()
        defer { s.stop() }
        for n in 1...3 {
            let wrong = try s.guestRun("phone", ["pair", forged.text, "--name", "phone", "--wait", "30s"])
            #expect(wrong.status == 1 && wrong.err.contains(n == 3 ? "burnt" : "wrong code"), "\(wrong.err)")
        }
        try s.procs.waitUntil(60, "the laptop to hear the code was burnt") { !asking.isRunning }
        let laptop = s.procs.read("laptop-pair.log")
        #expect(asking.terminationStatus == 1, "\(laptop)")
        #expect(laptop.contains("the code was burnt after 3 wrong tries: run `guest pair` again"), "\(laptop)")
        #expect(!laptop.contains("paired \""), "\(laptop)")
    }

    @Test func aUsedCodeNamesTheJoinerFromTheHomebasesNotice() throws {
        let (s, asking, good, forged) = try laptopAsking()
        defer { s.stop() }
        let wrong = try s.guestRun("phone", ["pair", forged.text, "--name", "phone", "--wait", "30s"])
        #expect(wrong.status == 1 && wrong.err.contains("wrong code; 2 tries left"), "\(wrong.err)")
        try s.phoneJoins(askedFor: good, by: asking)
    }
}
