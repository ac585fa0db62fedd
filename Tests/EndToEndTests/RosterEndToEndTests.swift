import Foundation
import Testing

/// The account roster with real processes on a real relay: a removed device is revoked (the
/// Homebase stops answering it, its sibling drops it), a roster replayed from an older version
/// is refused, and model choices travel between siblings without looping.
@Suite(.serialized) struct RosterEndToEndTests {
    static let chat = ["--max-tokens", "8", "--relay-wait", "5s", "--connect-timeout", "3s", "--accept-timeout", "2s",
                       "--first-output-timeout", "30s", "--stall-timeout", "10s"]

    /// Two guests listed by `devices add`, each told the Homebase's record and the account key.
    static func siblings(_ s: PairScene, _ names: [String]) throws -> [String: String] {
        let (account, record) = try s.initHost()
        var keys: [String: String] = [:]
        for n in names {
            let out = try s.guest(n, ["init", "--name", n, "--account", account])
            try s.homebase(["devices", "add", String(out.prefix { $0 != "\n" })])
            try s.guest(n, ["relay", "set", s.relay, "--homebase", record])
            keys[n] = try s.field(out, "  signing key ")
        }
        return keys
    }

    @Test func aRemovedDeviceIsRevokedAndAnOlderRosterReplayedIsRefused() throws {
        let s = try PairScene(engine: true)
        defer { s.stop() }
        let keys = try Self.siblings(s, ["a", "b"])
        try s.addRuntime()
        // Keep roster version 3 (host, a, b) aside: a restored backup will replay it later.
        let db = s.procs.work + "/host/homebase.sqlite3", backup = s.procs.work + "/roster-v3.sqlite3"
        try FileManager.default.copyItem(atPath: db, toPath: backup)
        for n in ["a", "b"] {
            try s.guest(n, ["settings", "set", "model.source", "external"])
            try s.guest(n, ["settings", "set", "ollama.model", "tiny"])
        }
        try s.startHost()
        try s.procs.waitUntil(30, "an advert to both guests") { s.procs.read("homebase.log").contains("to 2 device") }
        let before = try AnswerLine(try s.guest("b", ["chat"] + Self.chat + ["hello"]))
        #expect(before.brain == "homebase", "\(before.line)")
        let listed = try s.guest("a", ["devices", "--relay-wait", "5s"])
        #expect(listed.contains("roster version 3") && listed.contains(keys["b"]!), "\(listed)")

        // A stale copy of b (same keys, still believing it is a member: a device that ignores
        // its removal) shows that the Homebase itself refuses b after the removal.
        try FileManager.default.copyItem(atPath: s.procs.work + "/b", toPath: s.procs.work + "/b-stale")

        // Removal: roster 4 without b. The Homebase no longer opens b's frames; a drops b.
        #expect(try s.homebase(["devices", "remove", keys["b"]!]).contains("roster version 4"))
        try s.procs.waitUntil(30, "roster 4 sent") { s.procs.read("homebase.log").contains("roster 4 to 1 sibling") }
        // (The log line says queued, not stored: poll until a has read it.)
        var now = ""
        try s.procs.waitUntil(60, "roster 4 at a") {
            now = try s.guest("a", ["devices", "--relay-wait", "5s"])
            return now.contains("roster version 4")
        }
        #expect(!now.contains(keys["b"]!), "\(now)")
        // b itself heard the roster that removes it.
        try s.procs.waitUntil(60, "roster 4 at b") {
            try s.guest("b", ["devices", "--relay-wait", "5s"]).contains("this device is not in the roster: it was removed")
        }
        // From then on b does not even try the Homebase: on-device at once, no fallback.
        let told = try AnswerLine(try s.guest("b", ["chat"] + Self.chat + ["and now?"]))
        #expect(told.brain == "on-device" && !told.line.contains("fell back"), "\(told.line)")
        let stale = try AnswerLine(try s.guest("b-stale", ["chat"] + Self.chat + ["hello again"]))
        #expect(stale.brain == "on-device" && stale.line.contains("fell back"), "\(stale.line)")
        let stillA = try AnswerLine(try s.guest("a", ["chat"] + Self.chat + ["still here?"]))
        #expect(stillA.brain == "homebase", "\(stillA.line)")

        // A restored backup replays roster 3 (which still lists b) to a: refused, a keeps 4.
        s.stopHost()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
        try FileManager.default.copyItem(atPath: backup, toPath: db)
        try s.startHost(log: "homebase-restored.log")
        try s.procs.waitUntil(30, "the old roster sent again") { s.procs.read("homebase-restored.log").contains("roster 3 to 2 sibling") }
        var replayed = ""
        try s.procs.waitUntil(60, "a to read the replayed roster") {
            replayed = try s.guest("a", ["devices", "--relay-wait", "5s"])
            return s.procs.read("a/guest.log").contains("refused roster 3: not newer than 4")
        }
        #expect(replayed.contains("roster version 4") && !replayed.contains(keys["b"]!), "\(replayed)")
    }

    @Test func aHundredModelChoicesEachWayMakeNoLoop() throws {
        let s = try PairScene(engine: false)
        defer { s.stop() }
        _ = try Self.siblings(s, ["a", "b"])
        try s.startHost()
        let wait = ["--relay-wait", "5s"]
        for n in ["a", "b"] {
            try s.procs.waitUntil(60, "roster 3 at \(n)") { try s.guest(n, ["devices"] + wait).contains("roster version 3") }
        }
        s.stopHost()  // from here on, only the guests send mail

        let base = try s.mailFramesIn()
        for i in 0..<100 {
            try s.guest("a", ["settings", "set", "ollama.model", "model-a-\(i)"] + wait)
            try s.guest("b", ["settings", "set", "ollama.model", "model-b-\(i)"] + wait)
        }
        let sent = try s.mailFramesIn() - base
        #expect(sent == 200, "mail frames for 200 changes: \(sent)")
        // Each side reads what is left, twice: a loop would show as mail after the last change.
        for _ in 0..<2 { for n in ["a", "b"] { try s.guest(n, ["status"] + wait) } }
        #expect(try s.mailFramesIn() - base == sent, "mail sent after the last change")
        for n in ["a", "b"] {
            #expect(try s.guest(n, ["settings", "get", "ollama.model"]) == "model-b-99\n", "\(n) did not converge")
        }
        let applied = s.procs.read("a/guest.log").components(separatedBy: "applied").count - 1
        #expect(applied >= 99, "a applied \(applied) of b's 100 choices")
        print("model choice: 200 changes, \(sent) mail frames; a applied \(applied)")
    }
}
