import Foundation
import Testing

/// A removed device stays out (issue 15, hole 1), with real processes on a real relay: the
/// removed laptop runs `guest pair` again with the code it once paired with (it sits in shell
/// history), which sends the very same `pair-request`; the Homebase refuses it and adds nobody.
@Suite(.serialized) struct RemovedDeviceEndToEndTests {
    @Test func aRemovedLaptopResendingItsPairRequestIsRefused() throws {
        let s = try PairScene.withRunningHomebase()
        defer { s.stop() }
        let code = try s.homebaseCode()
        let joined = try s.guest("laptop", ["pair", code, "--name", "laptop", "--wait", "30s"])
        #expect(joined.contains("confirmation: "), "\(joined)")
        let line = try #require(try s.homebase(["devices", "list"]).split(separator: "\n").first { $0.hasSuffix("  laptop") })
        let key = String(line.prefix(64))

        let removed = try s.homebase(["devices", "remove", key])
        #expect(removed.contains("roster version 3") && removed.contains("retired"), "\(removed)")
        let again = try s.guestRun("laptop", ["pair", code, "--name", "laptop", "--wait", "30s"])
        #expect(again.status == 1 && again.err.contains("already used"), "\(again.out)\n\(again.err)")
        #expect(!(try s.homebase(["devices", "list"])).contains(key), "the removed laptop is back in the roster")
        #expect(try s.homebase(["status"]).contains("roster version 3"))
        #expect(s.procs.read("homebase.log").contains("pairing refused for laptop"), "\(s.procs.read("homebase.log"))")
    }
}
