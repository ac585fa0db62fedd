import Testing
import Wire
@testable import PeerLink

@Suite("relay URLs, pins, backoff")
struct URLAndBackoffTests {
    @Test func parsesRelayURLs() throws {
        let a = try RelayURL(parsing: "wss://Relay.Example/v1/connect")
        #expect(a.secure && a.host == "relay.example" && a.port == 443 && a.path == "/v1/connect")
        #expect(a.origin == "wss://relay.example:443")
        let b = try RelayURL(parsing: "ws://127.0.0.1:8080")
        #expect(!b.secure && b.port == 8080 && b.path == "/v1/connect")
        let c = try RelayURL(parsing: "wss://[::1]:9443/x")
        #expect(c.host == "::1" && c.port == 9443 && c.path == "/x" && c.origin == "wss://[::1]:9443")
        for bad in ["http://x", "ws://", "ws://h:0", "ws://h:70000", "ws://u@h", "ws://[::1", "ws://h/#f"] {
            #expect(throws: PeerLinkError.self) { try RelayURL(parsing: bad) }
        }
        #expect(a.matchesOrigin("wss://relay.example"))
        #expect(a.matchesOrigin("WSS://RELAY.EXAMPLE:443"))
        #expect(!a.matchesOrigin("wss://relay.example:443/v1/connect"))
        #expect(!a.matchesOrigin("ws://relay.example:443"))
    }

    @Test func parsesPins() throws {
        let hex = String(repeating: "ab", count: 32)
        #expect(try PeerLink.Trust.pinned(hex: hex) == .pinnedSHA256(Array(repeating: 0xab, count: 32)))
        let colons = Array(repeating: "AB", count: 32).joined(separator: ":")
        #expect(try PeerLink.Trust.pinned(hex: colons) == .pinnedSHA256(Array(repeating: 0xab, count: 32)))
        #expect(throws: PeerLinkError.invalidPin) { try PeerLink.Trust.pinned(hex: "abcd") }
        #expect(throws: PeerLinkError.invalidPin) { try PeerLink.Trust.pinned(hex: String(repeating: "zz", count: 32)) }
        #expect(throws: PeerLinkError.invalidPin) {
            try PeerLink.Configuration(relayURL: "wss://h", trust: .pinnedSHA256([1, 2]))
        }
    }

    @Test func backoffIsFastForTheFirstSecondsThenGrowsWithTheOutage() {
        let b = Backoff(initial: .milliseconds(100), maximum: .seconds(10), jitter: 0.5, growth: 0.05)
        // Fast while the link has been down for less than initial / growth (2 s here).
        #expect(b.delay(down: .zero, unit: 0) == .milliseconds(100))
        #expect(b.delay(down: .seconds(1), unit: 0) == .milliseconds(100))
        #expect(b.delay(down: .seconds(2), unit: 0) == .milliseconds(100))
        // Then 1/20 of the outage: a relay back after 30 s costs at most 1.5 s more.
        #expect(b.delay(down: .seconds(30), unit: 0) == .milliseconds(1500))
        #expect(b.delay(down: .seconds(100), unit: 0) == .seconds(5))
        #expect(b.delay(down: .seconds(10_000), unit: 0) == .seconds(10))
        // Jitter only shortens.
        #expect(b.delay(down: .seconds(30), unit: 0.5) == .milliseconds(1125))
        #expect(b.delay(down: .zero, unit: 0.999) > .milliseconds(50))
        #expect(b.refusalDelay(unit: 0) == .seconds(10))
        #expect(b.refusalDelay(unit: 0.5) == .milliseconds(7500))
    }

    @Test func theDefaultScheduleBringsALinkBackWithinTwoSecondsOfAThirtySecondOutage() {
        let b = Backoff()
        #expect(b.delay(down: .zero, unit: 0) <= .milliseconds(250))
        #expect(b.delay(down: .seconds(30), unit: 0) <= .seconds(2))
        #expect(b.delay(down: .seconds(3_600), unit: 0) == .seconds(60))
    }

    @Test func restartingIsRetriedAtTheAnnouncedTimeSpreadALittle() {
        let b = Backoff(jitter: 0.3, restartSpread: .milliseconds(500))
        #expect(b.requested(.seconds(2), unit: 0) == .seconds(2))
        // At most the spread later, however long the announced delay.
        #expect(b.requested(.seconds(2), unit: 1) == .milliseconds(2500))
        #expect(b.requested(.seconds(60), unit: 1) == .milliseconds(60_500))
        #expect(b.requested(.milliseconds(200), unit: 1) == .milliseconds(260))
    }
}

@Suite("dedupe set, live ledger, mail outbox")
struct BookkeepingTests {
    func key(_ n: UInt8, sender: UInt8 = 1) -> DedupeSet.Key {
        .init(sender: .repeating(sender), frameID: .repeating(n))
    }

    @Test func dedupeRemembersAckStateAndEvictsLeastRecent() {
        var d = DedupeSet(capacity: 3)
        #expect(d.lookup(key(1)) == .new)
        d.insert(key(1), acked: false)
        #expect(d.lookup(key(1)) == .pending)
        #expect(d.markAcked(key(1)) == true)
        #expect(d.lookup(key(1)) == .acked)
        #expect(d.lookup(key(1, sender: 2)) == .new) // same id, other sender
        d.insert(key(2), acked: true)
        d.insert(key(3), acked: true)
        _ = d.lookup(key(1)) // touch: 2 is now the least recent
        d.insert(key(4), acked: true)
        #expect(d.count == 3)
        #expect(d.lookup(key(2)) == .new)
        #expect(d.lookup(key(1)) == .acked)
        #expect(d.markAcked(key(9)) == false)
    }

    @Test func dedupeStaysBoundedUnderChurn() {
        var d = DedupeSet(capacity: 16)
        for i in 0..<10_000 {
            let k = DedupeSet.Key(sender: .zero, frameID: Bytes16(unchecked: withUnsafeBytes(of: UInt64(i)) { Array($0) } + Array(repeating: 0, count: 8)))
            d.insert(k, acked: true)
            _ = d.lookup(k)
        }
        #expect(d.count == 16)
    }

    @Test func ledgerSettlesByPongAndBounce() {
        var l = LiveLedger<Int>()
        l.add(.repeating(1), seq: 1, 10)
        l.add(.repeating(2), seq: 1, 20)
        l.add(.repeating(3), seq: 2, 30)
        #expect(l.resolve(.repeating(2)) == 20) // not-here
        #expect(l.resolve(.repeating(2)) == nil)
        #expect(l.resolve(through: 1) == [10])
        #expect(l.count == 1)
        #expect(l.resolve(through: 1) == [])
        l.add(.repeating(4), seq: 3, 40)
        #expect(l.drain() == [30, 40])
        #expect(l.isEmpty)
    }

    @Test func outboxKeepsOrderBoundAndBytes() {
        var o = MailOutbox<Int>(capacity: 2)
        #expect(o.add(.repeating(1), frame: [1], 1) == true)
        #expect(o.add(.repeating(1), frame: [9], 9) == false) // same id twice
        #expect(o.add(.repeating(2), frame: [2], 2) == true)
        #expect(o.add(.repeating(3), frame: [3], 3) == false) // full
        #expect(o.frames == [[1], [2]])
        #expect(o.remove(.repeating(1)) == 1)
        #expect(o.remove(.repeating(1)) == nil)
        #expect(o.frames == [[2]])
        #expect(o.drain() == [2])
        #expect(o.count == 0)
    }
}

/// A refusal reads as SPEC's reason name and the relay's text (what `guest status` prints).
@Test func aRefusalReadsAsItsReasonNameAndTheRelaysText() {
    #expect("\(LinkRefusal.authRefused(.notAdmitted, text: "this device was removed from its account"))"
            == "not-admitted: this device was removed from its account")
    #expect("\(LinkRefusal.authRefused(AuthRefusalReason(rawValue: 77), text: ""))" == "reason 77")
}
