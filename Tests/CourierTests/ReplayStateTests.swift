@testable import Courier
import Foundation
import Sealing
import Signing
import Testing

// The per-sender replay rules, in memory (`ReplayBook`) and on disk (`ReplayStore`): the same
// scenes run against both.
@Suite("replay state per sender")
struct ReplayStateTests {
    static let now: UInt64 = 1_800_000_000_000
    let a = SigningKey.generate().publicKey, b = SigningKey.generate().publicKey, c = SigningKey.generate().publicKey

    /// Both implementations with the same limits (the store in a fresh temp file).
    func states(capacity: Int = 4, senders: Int = 8) throws -> [ReplayState] {
        let limits = ReplayGuard(window: 1_000_000, maxFutureSkew: 300_000, capacity: capacity)
        let store = try ReplayStore(path: try temporaryDirectory("replay") + "/replay.sqlite3")
        return [ReplayState(ReplayBook(template: limits, senders: senders), store: nil, book: .envelopes),
                ReplayState(ReplayBook(template: limits, senders: senders), store: store, book: .envelopes)]
    }

    func accepts(_ s: inout ReplayState, _ ts: UInt64, id: MessageID = .random(), from k: PublicKey,
                 now: UInt64 = now) -> Bool {
        (try? s.accept(id, timestamp: ts, from: k, now: now)) != nil
    }

    @Test func aFutureStampedFloodFillsOnlyItsSendersState() throws {
        for var s in try states() {
            for _ in 0..<4 { #expect(accepts(&s, Self.now + 290_000, from: a)) }
            #expect(!accepts(&s, Self.now + 290_000, from: a))  // full of ids ahead of now: refused
            // Its own honest one stamped now is accepted and forgotten at once (watermark: now).
            #expect(accepts(&s, Self.now, from: a))
            #expect(!accepts(&s, Self.now - 1, from: a))
            #expect(accepts(&s, Self.now, from: b))  // another sender is untouched
            #expect(accepts(&s, Self.now - 1, from: b))
        }
    }

    @Test func aReplayIsRefusedAndEvictionRaisesTheWatermarkOnlyToNow() throws {
        for var s in try states(capacity: 2) {
            let id = MessageID.random()
            #expect(accepts(&s, Self.now - 10, id: id, from: a))
            #expect(!accepts(&s, Self.now - 10, id: id, from: a))
            #expect(accepts(&s, Self.now - 10, id: id, from: b))  // ids are per sender
            #expect(accepts(&s, Self.now - 5, from: a))
            #expect(accepts(&s, Self.now - 1, from: a))  // forgets the oldest (-10): watermark -10
            #expect(!accepts(&s, Self.now - 10, id: id, from: a))  // the forgotten id is still refused
            #expect(!accepts(&s, Self.now - 20, from: a))
            #expect(accepts(&s, Self.now - 7, from: a))  // above the watermark: accepted, forgotten at once
        }
    }

    @Test func aForgottenSendersOlderMessagesStayRefused() throws {
        for var s in try states(senders: 2) {
            let old = MessageID.random()
            #expect(accepts(&s, Self.now - 100, id: old, from: a))
            #expect(accepts(&s, Self.now - 50, from: b))
            #expect(accepts(&s, Self.now - 40, from: c, now: Self.now))  // evicts a (least recently heard)
            #expect(!accepts(&s, Self.now - 100, id: old, from: a, now: Self.now + 1))  // its replay: refused
            #expect(accepts(&s, Self.now + 1, from: a, now: Self.now + 1))  // its new ones: accepted (evicts b)
            #expect(!accepts(&s, Self.now - 30, from: b, now: Self.now + 2))
        }
    }

    /// The crowd's case: senders past the cap asking at once, each stamped just before the
    /// moment one was forgotten, were refused; a cap raised to the senders served keeps all.
    @Test func aRaisedCapKeepsEverySenderOfACrowd() throws {
        for var s in try states(senders: 1) {
            #expect(accepts(&s, Self.now - 2, from: a))
            #expect(accepts(&s, Self.now - 1, from: b))  // evicts a: the floor is now
            #expect(!accepts(&s, Self.now - 1, from: c))  // stamped before the floor: refused
        }
        for var s in try states(senders: 1) {
            s.hold(atLeast: 3)
            s.hold(atLeast: 2)  // never lowered
            #expect(accepts(&s, Self.now - 2, from: a))
            #expect(accepts(&s, Self.now - 1, from: b))
            #expect(accepts(&s, Self.now - 1, from: c))
        }
    }

    @Test func aSenderIsNotForgottenWhileItHoldsIdsAheadOfNow() throws {
        for var s in try states(senders: 1) {
            #expect(accepts(&s, Self.now + 100_000, from: a))
            #expect(!accepts(&s, Self.now, from: b))  // a cannot be forgotten: b is refused, a kept
            #expect(accepts(&s, Self.now + 1, from: a))
            #expect(accepts(&s, Self.now + 200_000, from: b, now: Self.now + 150_000))  // now a can go
        }
    }
}

@Suite("replay state on disk")
struct ReplayStoreTests {
    let sender = SigningKey.generate().publicKey
    let limits = ReplayGuard(capacity: 16)

    @Test func aSecondOpenerRefusesWhatTheFirstAccepted() throws {
        let path = try temporaryDirectory("replay") + "/replay.sqlite3"
        let id = MessageID.random(), now: UInt64 = 1_800_000_000_000
        let first = try ReplayStore(path: path)
        try first.accept(id, timestamp: now, from: sender, now: now, book: .envelopes, limits: limits, senders: 4)
        first.close()
        let second = try ReplayStore(path: path)
        #expect(throws: SealingError.replayed) {
            try second.accept(id, timestamp: now, from: sender, now: now + 1, book: .envelopes, limits: limits, senders: 4)
        }
        // Introductions keep their own state: the same id there is new.
        try second.accept(id, timestamp: now, from: sender, now: now + 1, book: .introductions, limits: limits, senders: 4)
    }

    @Test func theFileIsOwnerOnly() throws {
        let path = try temporaryDirectory("replay") + "/replay.sqlite3"
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        let store = try ReplayStore(path: path)
        try store.accept(.random(), timestamp: 5, from: sender, now: 5, book: .envelopes, limits: limits, senders: 4)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
    }

    @Test func aDamagedFileIsReportedAndLeftAlone() throws {
        let path = try temporaryDirectory("replay") + "/replay.sqlite3"
        let garbage = Data((0..<4096).map { UInt8($0 % 251) })
        try garbage.write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try ReplayStore(path: path)
        } throws: { e in
            guard case .replayStore(let p, _) = e as? CourierError else { return false }
            return p == path && "\(e)".contains("not reset")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }
}
