import CommandLineKit
import Foundation
import Inference
import Sealing
import Signing
import Testing
import Wire
@testable import HomebaseAgent
@testable import homebase

/// The pure parts: batching, the gate, conversation memory, admission, settings, flags.
struct BatcherTests {
    let ms: UInt64 = 1_000_000

    @Test func firstTextGoesAtOnceThenCoalesces() {
        var b = ChunkBatcher(policy: .init(maxDelay: .milliseconds(20), maxBytes: 100))
        #expect(b.next(nowNs: 0) == .idle)
        b.append("He")
        #expect(b.next(nowNs: 1 * ms) == .send([.text("He")]))
        b.append("l")
        b.append("lo")
        #expect(b.next(nowNs: 5 * ms) == .wait(untilNs: 21 * ms))
        #expect(b.next(nowNs: 21 * ms) == .send([.text("llo")]))
        b.append("!")
        b.finish()
        #expect(b.next(nowNs: 22 * ms) == .send([.text("!")]))  // the end flushes at once
        #expect(b.next(nowNs: 23 * ms) == .finished)
    }

    @Test func enoughBytesFlushBeforeTheDelay() {
        var b = ChunkBatcher(policy: .init(maxDelay: .seconds(1), maxBytes: 4))
        b.append("a")
        #expect(b.next(nowNs: 0) == .send([.text("a")]))
        b.append("bc")
        #expect(b.next(nowNs: ms) == .wait(untilNs: 1000 * ms))
        b.append("de")
        #expect(b.next(nowNs: 2 * ms) == .send([.text("bcde")]))
    }

    @Test func aTokenAfterAPauseGoesAtOnce() {
        var b = ChunkBatcher(policy: .init(maxDelay: .milliseconds(20), maxBytes: 100))
        b.append("a")
        #expect(b.next(nowNs: 0) == .send([.text("a")]))
        b.append("b")
        #expect(b.next(nowNs: 500 * ms) == .send([.text("b")]))
    }

    /// Tokens with their logprobs (text, logprobs, text, logprobs...) gather as one text record
    /// and one logprobs record per chunk, not a record per token.
    @Test func textAndLogprobsCoalesceAsOneOfEach() {
        var b = ChunkBatcher(policy: .init(maxDelay: .milliseconds(20), maxBytes: 1_000))
        let lp = { (t: String) in AppMessage.TokenLogprob(token: t, logprob: -1) }
        b.append("a"); b.append(.logprobs([lp("a")]))
        #expect(b.next(nowNs: 0) == .send([.text("a"), .logprobs([lp("a")])]))
        for t in ["b", "c", "d"] { b.append(.text(t)); b.append(.logprobs([lp(t)])) }
        #expect(b.next(nowNs: 21 * ms) == .send([.text("bcd"), .logprobs([lp("b"), lp("c"), lp("d")])]))
    }
}

struct GateTests {
    @Test func limitOneQueueZeroRefusesTheSecond() async {
        let gate = ConcurrencyGate(limit: 1, queue: 0)
        #expect(await gate.acquire(.own, maxWait: .seconds(5)) == .admitted)
        #expect(await gate.acquire(.own, maxWait: .seconds(5)) == .full)
        gate.release(.own)
        #expect(await gate.acquire(.own, maxWait: .seconds(5)) == .admitted)
    }

    @Test func aQueuedRequestGetsTheFreedSlotOrTimesOut() async {
        let gate = ConcurrencyGate(limit: 1, queue: 1)
        #expect(await gate.acquire(.own, maxWait: .seconds(5)) == .admitted)
        #expect(await gate.acquire(.own, maxWait: .milliseconds(10)) == .full)  // waited, nobody released
        async let waiter = gate.acquire(.own, maxWait: .seconds(20))
        while gate.counts.waiting == 0 { await Task.yield() }
        gate.release(.own)
        #expect(await waiter == .admitted)
        #expect(gate.counts.active == 1)
    }
}

struct MemoryTests {
    let a = AppMessage.ChatMessage(role: .user, content: "a")
    let b = AppMessage.ChatMessage(role: .assistant, content: "b")

    func hash(_ m: [AppMessage.ChatMessage]) -> [UInt8] { ConversationHash.of(m.map { ($0.role.rawValue, $0.content) }) }

    @Test func anyHeldPrefixIsFoundAndTheOldestIsForgotten() {
        var m = ConversationMemory(capacity: 2)
        m.hold([1], [a, b])
        let p1 = m.prefix([1], hashed: hash([a])), p2 = m.prefix([1], hashed: hash([a, b]))
        let p3 = m.prefix([1], hashed: hash([b])), p4 = m.prefix([9], hashed: ConversationHash.empty)
        #expect(p1 == [a] && p2 == [a, b] && p3 == nil && p4 == [])
        m.hold([2], [a])
        _ = m.prefix([1], hashed: hash([a]))  // 1 used more recently than 2
        m.hold([3], [b])
        #expect(m.count == 2)
        let forgotten = m.prefix([2], hashed: hash([a])), kept = m.prefix([1], hashed: hash([a]))
        #expect(forgotten == nil && kept == [a])
    }

    @Test func aDeltaAppliesOnlyOnItsBaseWithTheRightResult() {
        var m = ConversationMemory(capacity: 4)
        let good = AppMessage.SyncDelta(conversationID: .zero, basePrefixHash: .zero, appended: [a],
                                        resultingPrefixHash: Bytes32(unchecked: hash([a])))
        let appliedGood = m.apply(good, key: [1])
        #expect(appliedGood)
        let wrongResult = AppMessage.SyncDelta(conversationID: .zero, basePrefixHash: Bytes32(unchecked: hash([a])),
                                               appended: [b], resultingPrefixHash: .repeating(1))
        let appliedWrong = m.apply(wrongResult, key: [1])
        #expect(!appliedWrong)
        let unknownBase = AppMessage.SyncDelta(conversationID: .zero, basePrefixHash: .repeating(2), appended: [b],
                                               resultingPrefixHash: Bytes32(unchecked: hash([a, b])))
        let appliedUnknown = m.apply(unknownBase, key: [1])
        #expect(!appliedUnknown)
        let none = m.prefix([1], hashed: hash([a, b]))
        #expect(none == nil)
    }
}

struct SettingsTests {
    @Test func durationsParse() {
        #expect(Settings.parseDuration("250ms") == .milliseconds(250))
        #expect(Settings.parseDuration("30s") == .seconds(30))
        #expect(Settings.parseDuration("5m") == .seconds(300))
        #expect(Settings.parseDuration("1h") == .seconds(3600))
        #expect(Settings.parseDuration("7") == .seconds(7))
        #expect(Settings.parseDuration("soon") == nil)
        #expect(Settings.parseDuration("-1s") == nil)
    }

    @Test func configFileThenFlags() throws {
        let dir = try temporaryDirectory("conf")
        let path = dir + "/homebase.conf"
        try "# comment\nrelay = ws://127.0.0.1:9/v1/connect\nbatch-delay = 5ms\nmax-concurrent = 2\n".write(toFile: path, atomically: true, encoding: .utf8)
        var s = try Settings.load(path: path, explicit: true)
        s.values["max-concurrent"] = "3"
        let c = try s.configuration()
        #expect(c.batchDelay == .milliseconds(5))
        #expect(c.maxConcurrent == 3)
        #expect(c.link.relay.port == 9)
        try "bogus = 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: HomebaseError.self) { try Settings.load(path: path, explicit: true) }
        #expect(throws: HomebaseError.noRelay) { try Settings().configuration() }
    }

    @Test func everySettingKeyHasHelpAndADefault() throws {
        #expect(Settings.undescribedKeys.isEmpty, "keys without a line in SettingKeys.swift: \(Settings.undescribedKeys)")
        #expect(Settings.unknownDescribedKeys.isEmpty, "SettingKeys.swift describes keys Settings.keys lacks: \(Settings.unknownDescribedKeys)")
        let help = Settings.table.helpText(defaults: Settings())
        #expect(help.contains("--max-concurrent") && help.contains("(default 4)") && help.contains("(default 2s)"))
    }

    @Test func environmentSitsBetweenTheFileAndTheFlags() throws {
        let dir = try temporaryDirectory("conf")
        let path = dir + "/homebase.conf"
        try "relay = ws://127.0.0.1:9/v1/connect\nmax-concurrent = 2\nqueue-length = 7\n".write(toFile: path, atomically: true, encoding: .utf8)
        let run = HomebaseCLI.program.command("run")!
        let flags = try ParsedArguments.parse(["--max-concurrent", "5"], flags: run.flags)
        let env = ["HOMEBASE_HOST_MAX_CONCURRENT": "3", "HOMEBASE_HOST_BATCH_DELAY": "5ms", "HOMEBASE_TRACE_TIMINGS": "1"]
        let c = try Settings.layered(path: path, explicit: true, environment: env, flags: flags).configuration()
        #expect(c.maxConcurrent == 5 && c.batchDelay == .milliseconds(5) && c.queueLength == 7)
        #expect(throws: HomebaseError.self) {
            try Settings.layered(path: path, explicit: true, environment: ["HOMEBASE_HOST_COLOUR": "red"], flags: ParsedArguments())
        }
    }
}
