import Dispatch
import Foundation
import Testing
import Wire

/// Issue test 2 with live streams: `kill -9` one NATS node while streams of live frames run
/// between devices on different relay nodes and mail is being stored. Each stream either goes
/// on or fails visibly (the relay tells a device `internal-error`, or the sender gets `not-here`
/// / `dropped`) within the watchdog's budget; the device then reconnects (another node, or its
/// own once that node's link is back) and the stream resumes from its last chunk: every chunk
/// arrives once, in order. The mail stored meanwhile is all delivered, none twice.
@Suite(.serialized) struct ClusterStreamTests {
    /// A guest's watchdog gives a relayed answer 10 s to be accepted (`WatchdogLimits.accept`;
    /// 30 s between chunks): a chunk neither delivered nor failed visibly within this budget
    /// would leave it waiting. Every wait below is bounded by it (`HB_TEST_STREAM_BUDGET_MS`).
    static let budgetMs = Int(ProcessInfo.processInfo.environment["HB_TEST_STREAM_BUDGET_MS"] ?? "") ?? 10_000
    static let chunks = 60, killAfter = 20
    /// 300 mails in all, 100 of them stored before the kill.
    static let mailsPerRound = 5

    @Test func aKilledNatsNodeLetsEveryLiveStreamGoOnOrFailFastAndLosesNoMail() throws {
        let f = try ClusterFixture()
        defer { f.stop() }
        // relay-2 (NATS node 2 first) is the node whose NATS link dies; two streams touch it.
        let streams = try [(0, 1), (1, 2), (2, 0), (0, 2)].map { try LiveStream(f, from: $0.0, to: $0.1) }
        let (mailer, _) = try f.device(2)
        let recipient = SigningKeyBox()
        var stored: [Bytes16] = [], refused = 0
        var killedAt: DispatchTime?
        for round in 0..<Self.chunks {
            if round == Self.killAfter { f.nats.kill9(1); killedAt = .now() }
            for s in streams where !s.done { try s.step(killedAt: killedAt) }
            for _ in 0..<Self.mailsPerRound {
                let id = frameID()
                mailer.mail(to: recipient.publicKey, id: id, [UInt8(round)])
                switch try mailer.frame(within: Self.budgetMs, "an answer to mail \(round)") {
                case .stored(let got) where got == id: stored.append(id)
                case .mailboxFull(let got) where got == id: refused += 1  // an election: refused, never acked
                case let other: Issue.record("mail \(round): unexpected \(other)")
                }
            }
        }
        for s in streams {
            #expect(s.received == Array(0..<Self.chunks), "\(s.name): \(s.received)")
            print("cluster stream \(s.name): \(s.failures.count) visible failure(s) \(s.failures), \(s.resent) resend(s), "
                  + "now relay-\(s.senderRelay + 1) → relay-\(s.receiverRelay + 1)")
        }
        print("cluster: streams with NATS node 2 killed: mail \(stored.count) stored, \(refused) refused")
        #expect(streams.allSatisfy { $0.stalls == 0 })
        let got = try drainMail(f, recipient, relay: 2)
        #expect(Set(got) == Set(stored))  // none lost
        #expect(got.count == Set(got).count)  // none twice
    }

    func drainMail(_ f: ClusterFixture, _ key: SigningKeyBox, relay: Int) throws -> [Bytes16] {
        let b = try f.authenticated(relay, key)
        var got: [Bytes16] = []
        while true {
            switch try b.next() {
            case .receive(let m): got.append(m.frameID); b.send(.ack(frameID: m.frameID))
            case .queueEmpty: return got
            case .ping(let n): b.send(.pong(n))
            case let other: throw TestSetupError("unexpected \(other) in the backlog")
            }
        }
    }
}

/// One stream: chunk i goes from a device on one node to a device on another, one in flight,
/// as a reply streams. A device the relay closes reconnects and the chunk is sent again.
final class LiveStream {
    let f: ClusterFixture
    let name: String
    let fromKey = SigningKeyBox(), toKey = SigningKeyBox()
    var sender: TestClient, receiver: TestClient
    var senderRelay: Int, receiverRelay: Int
    private(set) var received: [Int] = []
    /// What ended a try and how long after the kill (ms): printed, never asserted.
    private(set) var failures: [String] = []
    private(set) var resent = 0, stalls = 0
    /// Every chunk arrived, or the stream gave up (recorded as an issue).
    var done: Bool { received.count == ClusterStreamTests.chunks || gaveUp }
    private(set) var gaveUp = false
    /// Tries per chunk: a `not-here` costs a 50 ms backoff, so these cover the budget.
    static let maxTries = max(1, ClusterStreamTests.budgetMs / 50)

    init(_ f: ClusterFixture, from: Int, to: Int) throws {
        self.f = f
        name = "relay-\(from + 1) → relay-\(to + 1)"
        senderRelay = from; receiverRelay = to
        sender = try f.device(from, fromKey).0
        receiver = try f.device(to, toKey).0
    }

    /// Sends the next chunk until it arrives (a visible failure reconnects and resends).
    func step(killedAt: DispatchTime?) throws {
        let chunk = received.count
        for _ in 0..<Self.maxTries {
            let id = frameID()
            sender.live(to: toKey.publicKey, id: id, [UInt8(chunk >> 8), UInt8(chunk & 0xFF)])
            switch try outcome(of: id) {
            case .arrived: received.append(chunk); return
            case .failed(let why):
                let after = killedAt.map { " \((DispatchTime.now().uptimeNanoseconds - $0.uptimeNanoseconds) / 1_000_000) ms after the kill" } ?? ""
                failures.append(why + after)
                resent += 1
            case .stalled:
                stalls += 1
                gaveUp = true
                Issue.record("\(name): chunk \(chunk) neither arrived nor failed within \(ClusterStreamTests.budgetMs) ms")
                return
            }
        }
        gaveUp = true
        Issue.record("\(name): chunk \(chunk) did not get through in \(Self.maxTries) tries")
    }

    enum Outcome { case arrived, failed(String), stalled }

    /// Polls both ends until the chunk arrives or one end says it failed, within the budget.
    private func outcome(of id: Bytes16) throws -> Outcome {
        let deadline = DispatchTime.now() + .milliseconds(ClusterStreamTests.budgetMs)
        while DispatchTime.now() < deadline {
            if let e = try? receiver.event(timeout: .milliseconds(20)) {
                switch e {
                case .frame(.receive(let r)) where r.frameID == id: return .arrived
                case .frame(.ping(let n)): receiver.send(.pong(n))
                case .frame(.error), .closed:
                    try reconnect(receiver: true)
                    return .failed("receiver closed")
                default: continue  // queue-empty, a late copy of an earlier try
                }
            }
            if let e = try? sender.event(timeout: .milliseconds(1)) {
                switch e {
                case .frame(.notHere(let got)) where got == id:
                    // The receiver is gone, or reconnected on a node whose interest has not
                    // reached the sender's yet: a short backoff, as a device takes.
                    if receiverClosed() { try reconnect(receiver: true) } else { usleep(50_000) }
                    return .failed("not-here")
                case .frame(.dropped(let got)) where got == id: return .failed("dropped")
                case .frame(.ping(let n)): sender.send(.pong(n))
                case .frame(.error), .closed:
                    try reconnect(receiver: false)
                    return .failed("sender closed")
                default: continue
                }
            }
        }
        return .stalled
    }

    private func receiverClosed() -> Bool {
        while let e = try? receiver.event(timeout: .milliseconds(1)) {
            switch e {
            case .frame(.error), .closed: return true
            default: continue
            }
        }
        return false
    }

    /// Back on a node: its own first (its link may be back), then the others in turn, within the budget.
    private func reconnect(receiver isReceiver: Bool) throws {
        let key = isReceiver ? toKey : fromKey
        let home = isReceiver ? receiverRelay : senderRelay
        let order = [home] + (0..<3).filter { $0 != home }
        let deadline = DispatchTime.now() + .milliseconds(ClusterStreamTests.budgetMs)
        var attempt = 0
        while DispatchTime.now() < deadline {
            let i = order[attempt % order.count]
            attempt += 1
            guard let c = try? f.authenticated(i, key) else { usleep(50_000); continue }
            if isReceiver { receiver.close(); receiver = c; receiverRelay = i } else { sender.close(); sender = c; senderRelay = i }
            return
        }
        throw TestSetupError("\(name): no node took the device back within \(ClusterStreamTests.budgetMs) ms")
    }
}

extension TestClient {
    /// The next frame within `ms` (pings answered), or a setup error naming what was awaited.
    func frame(within ms: Int, _ what: String) throws -> RelayFrame {
        let deadline = DispatchTime.now() + .milliseconds(ms)
        while DispatchTime.now() < deadline {
            guard let e = try? event(timeout: .milliseconds(50)) else { continue }
            switch e {
            case .frame(.ping(let n)): send(.pong(n))
            case .frame(let fr): return fr
            case let other: throw TestSetupError("\(what): \(other)")
            }
        }
        throw TestSetupError("no \(what) within \(ms) ms")
    }
}
