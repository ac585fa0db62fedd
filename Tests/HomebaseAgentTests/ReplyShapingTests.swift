import Testing
import Wire
@testable import HomebaseAgent
@testable import homebase

/// The pure shaping pieces of `ChunkBatcher` (ReplyShaping.swift), driven by a hand clock: the
/// end quantised to a length class, the first-chunk boundary, and cadence's ticks, splitting and
/// one chunk size. (The wire itself: ReplyShapingWireTests.)
struct ReplyShapingTests {
    let ms: UInt64 = 1_000_000

    func batcher(_ level: ReplyShaping, boundary: Duration = .zero, minFrames: Int = 16) -> ChunkBatcher {
        var p = ChunkBatcher.Policy(maxDelay: .milliseconds(20), maxBytes: 1_019)
        p.shaping = .init(level: level, interval: .milliseconds(50), boundary: boundary, frameBucket: 256, minFrames: minFrames)
        return ChunkBatcher(policy: p)
    }

    /// Runs `b` to `.finished`, stepping the clock to each wait; the sends (their events) in order.
    func drain(_ b: inout ChunkBatcher, from start: UInt64, limit: Int = 10_000) -> (sends: [[ReplyEvent]], times: [UInt64]) {
        var now = start, sends: [[ReplyEvent]] = [], times: [UInt64] = []
        for _ in 0..<limit {
            switch b.next(nowNs: now) {
            case .send(let e): sends.append(e); times.append(now)
            case .wait(let until): #expect(until > now); now = until
            case .idle: Issue.record("idle after finish"); return (sends, times)
            case .finished: return (sends, times)
            }
        }
        Issue.record("never finished")
        return (sends, times)
    }

    static func isClass(_ n: Int) -> Bool { n >= 16 && n & (n - 1) == 0 }

    @Test(arguments: [1, 3, 15, 16, 17, 40])
    func paddedEndsOnALengthClassOfChunks(_ texts: Int) {
        var b = batcher(.padded)
        var sent = 0
        for i in 0..<texts {  // each after a pause: its own chunk
            b.append("t\(i)")
            if case .send = b.next(nowNs: UInt64(i) * 100 * ms) { sent += 1 }
        }
        #expect(sent == texts)
        b.finish()
        let (tail, _) = drain(&b, from: UInt64(texts) * 100 * ms)
        #expect(tail.allSatisfy { $0.isEmpty }, "padding chunks carry nothing")
        // The pump adds the final chunk: text chunks + padding + 1 is a class (16, 32, 64).
        #expect(Self.isClass(sent + tail.count + 1), "\(sent) + \(tail.count) + 1")
        #expect(sent + tail.count + 1 == nextClass(texts + 1), "the smallest class that holds the text")
    }

    func nextClass(_ n: Int) -> Int { var c = 16; while c < n { c <<= 1 }; return c }

    @Test func paddedFirstChunkWaitsForItsBoundaryThenCoalescesAsOff() {
        var b = batcher(.padded, boundary: .milliseconds(100))
        #expect(b.next(nowNs: 0) == .idle)  // the request's instant: the origin
        b.append("first")
        #expect(b.next(nowNs: 30 * ms) == .wait(untilNs: 100 * ms))
        b.append(" more")
        #expect(b.next(nowNs: 100 * ms) == .send([.text("first more")]))
        b.append("x")
        #expect(b.next(nowNs: 105 * ms) == .wait(untilNs: 120 * ms))  // after it: the 20 ms window
        // Text past one boundary waits for the next one, not the first.
        var late = batcher(.padded, boundary: .milliseconds(100))
        _ = late.next(nowNs: 0)
        late.append("slow prefill")
        #expect(late.next(nowNs: 130 * ms) == .wait(untilNs: 200 * ms))
    }

    @Test func cadenceSendsOneBoundedChunkPerTickAndSplitsMuchText() throws {
        var b = batcher(.cadence)
        #expect(b.next(nowNs: 0) == .wait(untilNs: 50 * ms))  // the first tick: one interval after the request
        let text = String(repeating: "héllo wörld ", count: 60)  // 840 bytes: several ticks' worth
        b.append(text)
        b.finish()
        let (sends, times) = drain(&b, from: 0)
        // One chunk per tick, on the tick.
        #expect(times == (1...sends.count).map { UInt64($0) * 50 * ms })
        // Every chunk's records fit the 256 bucket's data (251 bytes): one size on the wire.
        for s in sends { #expect(try ReplyEvent.encode(s).count <= 251, "\(s)") }
        // The text arrives whole, in order, cut only between characters.
        let got = sends.flatMap { $0 }.map { if case .text(let t) = $0 { t } else { "?" } }.joined()
        #expect(got == text)
        #expect(sends.filter { !$0.isEmpty }.count == 4)  // 226 bytes of text per chunk (231 less a record header)
        #expect(Self.isClass(sends.count + 1), "\(sends.count) + the final chunk")
    }

    /// A cadence stream ends on its floor (in ticks, not a power of two) or a doubling of it: a
    /// short answer and a longer one under the floor look alike (the bench's topics told apart by
    /// ending on 64 or 128 ticks when the floor was 16, docs/SIDE-CHANNEL.md).
    @Test(arguments: [(1, 160), (3_000, 160), (50_000, 320)])
    func cadenceEndsOnItsFloorOrADoublingOfIt(_ bytes: Int, _ chunks: Int) {
        var b = batcher(.cadence, minFrames: 160)
        _ = b.next(nowNs: 0)
        b.append(String(repeating: "a", count: bytes))
        b.finish()
        let (sends, times) = drain(&b, from: 0)
        #expect(sends.count + 1 == chunks, "\(sends.count) + the final chunk")
        #expect(times.last == UInt64(chunks - 1) * 50 * ms)
    }

    /// The product's default: a one-word cadence answer keeps its stream open for 8 s (160 ticks
    /// of 50 ms, the final chunk at the last), and the floor follows the tick and setting.
    @Test func defaultCadenceKeepsAShortAnswerOpenForItsMinimumDuration() throws {
        var c = try HomebaseAgent.Configuration(relayURL: "ws://127.0.0.1:1")
        c.replyShaping = .cadence
        var b = ChunkBatcher(policy: c.batchPolicy)
        _ = b.next(nowNs: 0)
        b.append("hi")
        b.finish()
        let (sends, times) = drain(&b, from: 0)
        #expect(sends.count + 1 == 160)
        #expect(times.last.map { $0 + 50 * ms } == 8_000 * ms)
        c.cadenceMinDuration = .milliseconds(1_010)  // rounded up to a tick
        #expect(c.batchPolicy.shaping.minFrames == 21)
        c.cadenceMinDuration = .zero  // at least 16 ticks, as before the floor existed
        #expect(c.batchPolicy.shaping.minFrames == 16)
        c.replyShaping = .padded  // padded's classes do not change
        c.cadenceMinDuration = .seconds(8)
        #expect(c.batchPolicy.shaping.minFrames == 16)
    }

    @Test func cadenceMinDurationIsASetting() throws {
        var s = Settings()
        s.values["relay"] = "ws://127.0.0.1:1"
        s.values["cadence-min-duration"] = "3s"
        #expect(try s.configuration().cadenceMinDuration == .seconds(3))
        #expect(Settings.keys.contains("cadence-min-duration"))  // hence also a flag of `run`
        s.values["cadence-min-duration"] = "long"
        #expect(throws: HomebaseError.self) { try s.configuration() }
    }

    @Test func cadenceTicksEmptyWhileNoTextCame() {
        var b = batcher(.cadence)
        _ = b.next(nowNs: 0)
        #expect(b.next(nowNs: 50 * ms) == .send([]))
        #expect(b.next(nowNs: 60 * ms) == .wait(untilNs: 100 * ms))
        b.append("hi")
        #expect(b.next(nowNs: 100 * ms) == .send([.text("hi")]))
        // A caller late by several ticks gets one chunk per call until it caught up: the count of
        // chunks stays the count of ticks.
        #expect(b.next(nowNs: 400 * ms) == .send([]))
        #expect(b.next(nowNs: 400 * ms) == .send([]))
    }

    @Test func takeSplitsTextAtACharacterAndKeepsOtherEventsWhole() {
        var b = batcher(.cadence)
        b.append(.toolCall(.init(id: "c1", name: "search", argumentsJSON: String(repeating: "a", count: 400))))
        b.append("after")
        let first = b.take(upTo: 231)
        #expect(first.count == 1)  // a non-text event over the room goes whole when it comes first
        #expect(b.take(upTo: 231) == [.text("after")])
        #expect(b.isEmpty)
        b.append(String(repeating: "€", count: 10))  // 3 bytes each
        #expect(b.take(upTo: 5 + 7) == [.text("€€")])  // 7 bytes of room hold 2, never half of one
        #expect(b.pendingBytes == 24)
    }

    /// `homebase status` names the level and what it promises (from the running agent's file).
    @Test(arguments: [(ReplyShaping.off, "reply shaping: off (coalescing only)"),
                      (.padded, "reply shaping: padded (end quantised"),
                      (.cadence, "reply shaping: cadence (one 280-byte chunk every 50 ms; a stream lasts 8 s, or a doubling of it")])
    func statusSaysTheLevel(_ level: ReplyShaping, _ line: String) async throws {
        try await HostFixture.with(runtime: nil, configure: { $0.replyShaping = level }) { f in
            try await eventually("status names the reply shaping") {
                StatusText.render(try HostStatus.read(f.files), nowMs: nowMs()).contains(line)
            }
        }
    }
}
