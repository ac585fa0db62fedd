import Foundation
import Testing
import TestSupport
@testable import HomebaseAgent

/// The status page's recent requests (`status.json`'s `live.recent`): a bounded ring, each with
/// its timing, outcome and who asked, and never a word of the prompt. Real host, real relay,
/// a scripted engine on loopback (ServingErrorTests' harness).
@Suite(.serialized) struct RecentRequestsTests {
    @Test func theRingKeepsTheLast50OldestFirst() {
        var ring = RecentRing()
        for i in 0..<60 { ring.add(RecentRequest(startedMs: Int64(i), durationMs: 1, outcome: "done", who: "d", model: "m")) }
        #expect(ring.entries.count == 50)
        #expect(ring.entries.first?.startedMs == 10 && ring.entries.last?.startedMs == 59)
    }

    @Test func eachRequestIsNotedWithWhoAndHowItEndedButNotItsText() async throws {
        try await ServingErrorTests().withHost(try ScriptedEngine.url("ok")) { f in
            let (_, a) = await f.guest.ask(request("scripted", "a secret question"), to: f.host)
            #expect(a.done != nil)
            let (_, b) = await f.guest.ask(request("no-such-model", "another secret"), to: f.host)
            #expect(b.error != nil)
            try await eventually("both noted") { f.agent.live(running: true).recent?.count == 2 }
            let recent = try #require(f.agent.live(running: true).recent)
            let name = f.guest.identity.record.name
            #expect(recent.map(\.who) == [name, name], "\(recent)")
            #expect(recent[0].outcome == "done" && recent[0].model == "scripted", "\(recent)")
            #expect(recent[1].outcome == (b.error?.code.name ?? "?") && recent[1].outcome != "done", "\(recent)")
            #expect(recent.allSatisfy { $0.durationMs >= 0 && $0.startedMs > 0 })
            f.agent.writeStatus(running: true)
            let file = try String(contentsOfFile: f.agent.files.statusPath, encoding: .utf8)
            #expect(file.contains("\"recent\"") && !file.contains("secret"), "\(file)")
        }
    }
}
