import Foundation
import Testing

/// A second workstation joins the account with `homebase pair CODE`, real processes on a real
/// relay: both show the same confirmation, both list both, it follows the first Homebase's
/// rosters (refusing a replayed older one and one signed by another key), hears its removal,
/// and a Homebase that heads its own account is refused (nothing changed).
@Suite(.serialized) struct SecondHomebaseEndToEndTests {
    @Test func aSecondHomebasePairsFollowsTheRosterAndHearsItsRemoval() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        let (account, _) = try s.initHost()
        try s.startHost()
        let pairing = try s.procs.start(s.bin.path("homebase"), s.hostArgs + ["pair", "--relay", s.relay], log: "pair.log")
        try s.procs.waitUntil(30, "the code") { s.procs.read("pair.log").contains("hbpair1-") }
        let code = try s.code(s.procs.read("pair.log"))

        // The second workstation: its own data directory and config (the relay is written there).
        let conf = s.procs.work + "/second.conf"
        let second = ["--data-dir", s.procs.work + "/second", "--config", conf]
        let joinedRun = try s.run(s.bin.path("homebase"), second + ["pair", code, "--name", "second", "--wait", "30s"])
        #expect(joinedRun.status == 0, "\(joinedRun.err)")
        let joined = joinedRun.out
        let confirmation = try s.field(joined, "confirmation: ").prefix(9)
        try s.procs.waitUntil(30, "homebase pair to finish") { !pairing.isRunning }
        #expect(s.procs.read("pair.log").contains("confirmation: \(confirmation)"), "\(s.procs.read("pair.log"))\n\(joined)")
        #expect(try s.field(joined, "account key: ") == account)
        #expect((try? String(contentsOfFile: conf, encoding: .utf8))?.contains("relay = \(s.relay)") == true)
        #expect(!FileManager.default.fileExists(atPath: s.procs.work + "/second/account.key"))
        let secondKey = try s.field(joined, "new Homebase identity \"second\" ")

        // Both list both; `status` tells who signs the roster.
        let onSecond = try s.run(s.bin.path("homebase"), second + ["devices", "list"]).out
        let onFirst = try s.homebase(["devices", "list"])
        for list in [onSecond, onFirst] { #expect(list.contains("e2e-homebase") && list.contains(secondKey), "\(list)") }
        #expect(try s.homebase(["status"]).contains("holds the account key"))
        #expect(try s.run(s.bin.path("homebase"), second + ["status"]).out.contains("joined; the roster is signed on \"e2e-homebase\""))

        // Changes belong to the first Homebase: named, exit 1.
        let firstKey = try s.field(try s.homebase(["status"]), "device: ").prefix(64)
        let remove = try s.run(s.bin.path("homebase"), second + ["devices", "remove", String(firstKey)])
        #expect(remove.status == 1 && remove.err.contains("only the account's first Homebase, \"e2e-homebase\""), "\(remove.err)")
        let issue = try s.run(s.bin.path("homebase"), second + ["pair", "--relay", s.relay, "--no-wait"])
        #expect(issue.status == 1 && issue.err.contains("only the account's first Homebase"), "\(issue.err)")

        // A Homebase that heads its own account cannot join another: refused, nothing changed.
        let other = try s.homebaseCode()
        let heads = try s.run(s.bin.path("homebase"), s.hostArgs + ["pair", other])
        #expect(heads.status == 1 && heads.err.contains("heads its own account") && heads.err.contains("--data-dir"), "\(heads.err)")
        #expect(FileManager.default.fileExists(atPath: s.procs.work + "/host/account.key"))

        try s.procs.start(s.bin.path("homebase"), second + ["run", "--reload-interval", "100ms", "--advert-pulse", "2s",
                                                          "--default-runtime", "http://127.0.0.1:1"], log: "second.log")
        try s.procs.waitUntil(30, "the second Homebase to connect") { s.procs.read("second.log").contains("connected to the relay") }

        // Keep roster 2 aside (a restored backup replays it; copied stopped: the WAL holds it),
        // then roster 3 adds a laptop.
        let db = s.procs.work + "/host/homebase.sqlite3", backup = s.procs.work + "/roster-v2.sqlite3"
        s.stopHost()
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: db + suffix) {
            try FileManager.default.copyItem(atPath: db + suffix, toPath: backup + suffix)
        }
        try s.startHost(log: "homebase-2.log")
        let laptop = try s.guest("laptop", ["init", "--name", "laptop", "--account", account])
        try s.homebase(["devices", "add", String(laptop.prefix { $0 != "\n" })])
        try s.procs.waitUntil(60, "roster 3 at the second") { s.procs.read("second.log").contains("roster 3 accepted: 3 device(s)") }
        #expect(try s.run(s.bin.path("homebase"), second + ["devices", "list"]).out.contains("laptop"))

        s.stopHost()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: backup + suffix) {
            try FileManager.default.copyItem(atPath: backup + suffix, toPath: db + suffix)
        }
        try s.startHost(log: "homebase-restored.log")
        try s.procs.waitUntil(60, "the replayed roster refused") {
            s.procs.read("second.log").contains("refused roster 2 from \"e2e-homebase\"") && s.procs.read("second.log").contains("not newer than 3")
        }

        // Another key signs (the first Homebase's account key swapped): refused by the second.
        let key = s.procs.work + "/host/account.key", kept = s.procs.work + "/account.key.kept"
        try FileManager.default.moveItem(atPath: key, toPath: kept)
        _ = try s.run(s.bin.path("homebase"), ["--data-dir", s.procs.work + "/mallory", "init", "--name", "mallory"])
        try FileManager.default.copyItem(atPath: s.procs.work + "/mallory/account.key", toPath: key)
        let phone = try s.guest("phone", ["init", "--name", "phone", "--account", account])
        try s.homebase(["devices", "add", String(phone.prefix { $0 != "\n" })])
        try s.procs.waitUntil(60, "the foreign roster refused") {
            s.procs.read("second.log").contains("refused roster 3 from \"e2e-homebase\"")
                && s.procs.read("second.log").contains("names another account key")
        }
        try FileManager.default.removeItem(atPath: key)
        try FileManager.default.moveItem(atPath: kept, toPath: key)

        // Removal on the first reaches the second, which says so and serves no sibling.
        #expect(try s.homebase(["devices", "remove", secondKey]).contains("roster version 4"))
        try s.procs.waitUntil(60, "the removal at the second") { s.procs.read("second.log").contains("removed from the account") }
        let status = try s.run(s.bin.path("homebase"), second + ["status"]).out
        #expect(status.contains("REMOVED from the account") && status.contains("roster version 4"), "\(status)")
        #expect(!(try s.homebase(["devices", "list"])).contains(secondKey))
    }
}
