import Foundation
import Testing

/// #21, the workstation as a household server, with real processes: a friend's token budget
/// runs out on real requests through a real relay (then `busy`, answered on the friend's own
/// device, the reason in its `guest status`) while the owner's laptop is served as before; the
/// usage the Homebase counted equals what the engine itself reported; two llama-servers on one
/// model share 20 concurrent requests; the audit log holds the grantee's requests, not the
/// owner's (off by default), and no prompt text.
@Suite(.serialized) struct HouseEndToEndTests {
    static func tokens(_ e: [String: Any]) -> (Int, Int) { (e["prompt_tokens"] as? Int ?? -1, e["completion_tokens"] as? Int ?? -1) }

    @Test func aFriendsBudgetRunsOutTheOwnerIsUnaffectedAndUsageIsTheEngines() throws {
        var h = try HouseScene(engines: 1)
        defer { h.s.stop() }
        try h.startHost()
        try h.pairLaptop()
        let budget = 60
        try h.joinFriend("friend", share: ["--models", "tiny", "--tokens", "\(budget)/day"])
        #expect(try h.s.homebase(["grants", "list"]).contains("budget \(budget)/day"))

        // Real requests until the budget refuses one: the friend's device answers that one itself.
        var brains: [String] = []
        for i in 0..<12 {
            let r = try h.s.guestRun("friend", ["chat", "--max-tokens", "16"] + h.chat + ["budget check number \(i)"])
            brains.append(try AnswerLine(r.out).brain)
            if brains.last == "on-device" { break }
        }
        let served = brains.count - 1
        #expect(served >= 1 && brains.last == "on-device", "\(brains)\n\(h.s.procs.read("homebase.log"))")
        #expect(brains.dropLast().allSatisfy { $0 == "joined-homebase" }, "\(brains)")
        let status = try h.s.guestRun("friend", ["status", "--relay-wait", "3s"])
        #expect(status.out.contains("over the grant's token budget"), "\(status.out)")

        // The engine's own figures for those requests: the budget was crossed by the last one only.
        let friendTapped = h.tapped(0)
        #expect(friendTapped.count == served, "\(friendTapped)")
        let sums = friendTapped.map { Self.tokens($0).0 + Self.tokens($0).1 }
        #expect(sums.reduce(0, +) >= budget && sums.dropLast().reduce(0, +) < budget, "\(sums)")

        // The owner's laptop is not counted against anything: still the Homebase.
        for i in 0..<2 {
            let r = try h.s.guestRun("laptop", ["chat", "--max-tokens", "8"] + h.chat + ["owner question \(i)"])
            #expect(try AnswerLine(r.out).brain == "homebase", "\(r.out)\n\(r.err)")
        }

        // Usage as the Homebase counted it equals the engine's own usage, request by request summed.
        let all = h.tapped(0)
        let usage = try h.usage()
        let friendIn = friendTapped.reduce(0) { $0 + Self.tokens($1).0 }, friendOut = friendTapped.reduce(0) { $0 + Self.tokens($1).1 }
        let ownTapped = Array(all.dropFirst(served))
        #expect(ownTapped.count == 2)
        #expect(usage[false]?.requests == served && usage[false]?.tokensIn == friendIn && usage[false]?.tokensOut == friendOut,
                "\(String(describing: usage[false])) vs \(friendIn)/\(friendOut)")
        #expect(usage[true]?.requests == 2 && usage[true]?.tokensIn == ownTapped.reduce(0) { $0 + Self.tokens($1).0 }
                && usage[true]?.tokensOut == ownTapped.reduce(0) { $0 + Self.tokens($1).1 }, "\(String(describing: usage[true]))")
        let text = try h.s.homebase(["grants", "usage"])
        #expect(text.contains("grant ") && text.contains("own device") && text.contains("budget \(budget)/day"), "\(text)")

        // The audit log: the friend's requests (answered and refused), none of the owner's, no prompt text.
        let audit = h.s.procs.read("host/audit.jsonl")
        let lines = audit.split(separator: "\n")
        #expect(lines.count >= served + 1, "\(audit)")
        #expect(lines.allSatisfy { $0.contains("\"requester\":\"grant:") }, "\(audit)")
        #expect(lines.filter { $0.contains("\"outcome\":\"done\"") }.count == served, "\(audit)")
        #expect(lines.contains { $0.contains("\"outcome\":\"busy\"") }, "\(audit)")
        #expect(!audit.contains("budget check") && !audit.contains("owner question"))
    }

    @Test func twoEnginesOnOneModelShareTwentyConcurrentRequests() throws {
        var h = try HouseScene(engines: 2)
        defer { h.s.stop() }
        try h.startHost(["--max-concurrent", "20", "--queue-length", "20", "--queue-wait", "120s", "--audit-own", "on"])
        try h.pairLaptop()
        try h.s.guest("laptop", ["settings", "set", "engine.warm", "off"])
        let port = try Processes.freePort()
        try h.s.procs.start(h.s.bin.path("guest"), ["serve", "--listen", "127.0.0.1:\(port)"] + h.chat + h.s.guestArgs("laptop"),
                            log: "serve.log", environment: h.s.environment)
        try h.s.procs.waitUntil(60, "guest serve") { Processes.canConnect(port) }
        try h.s.procs.waitUntil(60, "the laptop to hold the Homebase's advert") {
            (try h.s.guestRun("laptop", ["status", "--relay-wait", "3s"])).out.contains("tiny")
        }
        let result = try runJSONPeer(testsFile("EndToEndTests/peers/concurrent_chat.py"), ["--port", "\(port)", "--count", "20"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any])
        #expect(json["ok"] as? Int == 20, "\(result)\n\(h.s.procs.read("homebase.log"))")
        #expect((json["brains"] as? [String: Int])?["homebase"] == 20, "\(result)")

        // Both engines answered some; together exactly the 20.
        let a = h.tapped(0), b = h.tapped(1)
        #expect(!a.isEmpty && !b.isEmpty && a.count + b.count == 20, "\(a.count) + \(b.count)")
        // `homebase status` shows each runtime's load; the usage equals both engines' own sums.
        var status = ""
        try h.s.procs.waitUntil(30, "status to show both runtimes' load") {
            status = try h.s.homebase(["status"])
            return status.contains("load: 0 in flight, \(a.count) served") && status.contains("load: 0 in flight, \(b.count) served")
        }
        let usage = try h.usage()
        let both = a + b
        #expect(usage[true]?.requests == 20 && usage[true]?.tokensIn == both.reduce(0) { $0 + Self.tokens($1).0 }
                && usage[true]?.tokensOut == both.reduce(0) { $0 + Self.tokens($1).1 }, "\(String(describing: usage[true]))")
        // --audit-own on: the owner's requests are in the audit log, with the runtime that answered.
        try h.s.procs.waitUntil(30, "20 audit lines") { h.s.procs.read("host/audit.jsonl").split(separator: "\n").count >= 20 }
        let audit = h.s.procs.read("host/audit.jsonl").split(separator: "\n")
        #expect(audit.count == 20 && audit.allSatisfy { $0.contains("\"requester\":\"device:") }, "\(audit)")
        #expect(audit.contains { $0.contains(h.url[0]) } && audit.contains { $0.contains(h.url[1]) })

        // One runtime gone: after the request that met it failed (answered on-device), the other serves.
        h.s.procs.kill(h.taps[0].process)
        var brains: [String] = []
        for _ in 0..<3 {
            let one = try runJSONPeer(testsFile("EndToEndTests/peers/concurrent_chat.py"), ["--port", "\(port)", "--count", "1"])
            let j = try #require(try JSONSerialization.jsonObject(with: Data(one.utf8)) as? [String: Any])
            brains.append(((j["brains"] as? [String: Int]) ?? [:]).keys.first ?? "none")
        }
        #expect(brains.dropFirst().allSatisfy { $0 == "homebase" }, "\(brains)\n\(h.s.procs.read("homebase.log"))")
        #expect(h.tapped(1).count >= b.count + 2, "\(brains)")
    }
}
