import Courier
import Foundation
import PeerLink
import Sealing
import Signing
import Testing
import Wire
@testable import HomebaseAgent

// Issue 15, holes 2 and 3, against the real agent: a friend (a grantee) cannot keep the
// owner's laptop (a sibling) from being answered.
@Suite(.serialized) struct FloodTests {
    /// A grantee with a grant in force, linked to the fixture's relay.
    func friend(_ f: HostFixture) async throws -> GuestSide {
        let friend = try GuestSide(relayURL: f.relay.url, host: f.host, name: "friend")
        let store = try f.files.openStore()
        try store.saveGrant(GrantRecord(grantID: .random(), grantee: friend.identity.record, models: ["scripted"],
                                        createdMs: nowMs()))
        store.close()
        try await eventually("the agent knows the grantee") {
            f.agent.state.withLock { $0.membership.grants[friend.identity.signingKey.publicKey] != nil }
        }
        try await friend.start()
        return friend
    }

    /// Sends `request` from the laptop and waits (bounded) until the host has taken it in whole
    /// (`taken` holds), then reads its answer: a request the host refused never hangs the test.
    func ask(_ f: HostFixture, _ r: AppMessage.Request, taken: @escaping () -> Bool) async throws -> Answer {
        let (outcome, stream) = await f.guest.courier.sendRequest(r, to: f.host)
        #expect(outcome == .sent)
        try await eventually("the host took the laptop's request", taken)
        var answer = Answer()
        for await reply in stream {
            answer.add(reply)
            if answer.ended { break }
        }
        return answer
    }

    @Test func aGranteesFutureStampedFloodLeavesTheOwnersLaptopAnswered() async throws {
        // A small guard stands for the default: the flood is one id more than it holds.
        let capacity = 8
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted"]),
                                   configure: { $0.courier.replayGuard = ReplayGuard(capacity: capacity) }) { f in
            let friend = try await friend(f)
            defer { friend.stop() }
            let ahead = UInt64(nowMs()) + 290_000  // 4:50 ahead: inside the tolerated skew
            let body = try AppMessage.cancel(requestID: .random()).encode()
            for _ in 0...capacity {
                let sealed = try Envelope.seal(body: body, from: friend.identity, to: f.host, now: ahead)
                #expect(await friend.courier.link.sendLive(to: f.host.signingKey, payload: sealed.bytes) == .sent)
            }
            try await eventually("the flood was handled") {
                let s = f.agent.courier.stats
                return s.opened + s.replays == capacity + 1
            }
            let opened = f.agent.courier.stats.opened
            let answer = try await ask(f, request("scripted", inline: true)) { f.agent.courier.stats.opened > opened }
            #expect(answer.accepted && answer.done != nil)
            // The status says what was refused, in words.
            let refused = try #require(f.agent.live(running: true).refused)
            #expect(refused.replays == 1 && refused.line.contains("1 replayed or out-of-time"))
        }
    }

    @Test func aGranteesHalfSentMessagesLeaveTheOwnersLongRequestAnswered() async throws {
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted"])) { f in
            let friend = try await friend(f)
            defer { friend.stop() }
            // Sixteen tiny "part 0 of 2", never finished: on main, every slot of the shared buffer.
            for i in 0..<16 {
                let part = AppMessage.Part(messageID: .repeating(UInt8(i)), index: 0, count: 2, totalLength: 2, bytes: [0])
                let sealed = try Envelope.seal(body: try AppMessage.part(part).encode(), from: friend.identity,
                                               to: f.host, now: UInt64(nowMs()))
                #expect(await friend.courier.link.sendLive(to: f.host.signingKey, payload: sealed.bytes) == .sent)
            }
            try await eventually("the halves were opened") { f.agent.courier.stats.opened == 16 }
            // A request longer than one frame (two parts): the owner's laptop is still answered.
            let long = request("scripted", String(repeating: "long prompt ", count: 4_000), inline: true)
            let answer = try await ask(f, long) { f.agent.courier.stats.partsReassembled == 1 }
            #expect(answer.accepted && answer.done != nil)
        }
    }
}
