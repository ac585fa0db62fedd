import Testing
@testable import Sealing

func id(_ n: UInt8) -> MessageID { MessageID(bytes: [UInt8](repeating: n, count: 16))! }

@Test func seenIdsAreRefused() throws {
    var g = ReplayGuard(window: 1000, maxFutureSkew: 100, capacity: 10)
    try g.accept(id(1), timestamp: 5000, now: 5000)
    #expect(throws: SealingError.replayed) { try g.accept(id(1), timestamp: 5000, now: 5001) }
    #expect(throws: SealingError.replayed) { try g.accept(id(1), timestamp: 5500, now: 5500) }
    try g.accept(id(2), timestamp: 5000, now: 5001)
    #expect(g.count == 2)
}

@Test func windowBoundsBothWays() throws {
    var g = ReplayGuard(window: 1000, maxFutureSkew: 100, capacity: 10)
    #expect(throws: SealingError.replayed) { try g.accept(id(1), timestamp: 3999, now: 5000) }
    try g.accept(id(2), timestamp: 4000, now: 5000)
    try g.accept(id(3), timestamp: 5100, now: 5000)
    #expect(throws: SealingError.replayed) { try g.accept(id(4), timestamp: 5101, now: 5000) }
    // Early times do not underflow.
    try g.accept(id(5), timestamp: 0, now: 10)
}

@Test func idsAreForgottenWhenTheyLeaveTheWindow() throws {
    var g = ReplayGuard(window: 1000, maxFutureSkew: 0, capacity: 10)
    try g.accept(id(1), timestamp: 1000, now: 1000)
    try g.accept(id(2), timestamp: 1500, now: 1500)
    try g.accept(id(3), timestamp: 2100, now: 2100)  // id 1 now outside: forgotten
    #expect(g.count == 2)
    // And a copy of id 1 is still refused, by its age.
    #expect(throws: SealingError.replayed) { try g.accept(id(1), timestamp: 1000, now: 2100) }
}

@Test func capacityRaisesTheWatermark() throws {
    var g = ReplayGuard(window: 1_000_000, maxFutureSkew: 0, capacity: 3)
    try g.accept(id(1), timestamp: 100, now: 1000)
    try g.accept(id(2), timestamp: 300, now: 1000)
    try g.accept(id(3), timestamp: 200, now: 1000)
    try g.accept(id(4), timestamp: 400, now: 1000)  // evicts id 1 (oldest, t=100)
    #expect(g.count == 3)
    #expect(throws: SealingError.replayed) { try g.accept(id(1), timestamp: 100, now: 1000) }  // still refused
    #expect(throws: SealingError.replayed) { try g.accept(id(9), timestamp: 100, now: 1000) }  // at watermark
    try g.accept(id(9), timestamp: 101, now: 1000)  // the oldest now: evicted at once
    #expect(throws: SealingError.replayed) { try g.accept(id(9), timestamp: 101, now: 1000) }
    try g.accept(id(8), timestamp: 250, now: 1000)  // evicts id 3 (t=200)
    #expect(throws: SealingError.replayed) { try g.accept(id(3), timestamp: 200, now: 1000) }
    try g.accept(id(7), timestamp: 201, now: 1000)
    #expect(throws: SealingError.replayed) { try g.accept(id(2), timestamp: 300, now: 1000) }  // remembered
    #expect(g.count == 3)
}

@Test func theWatermarkNeverPassesNow() throws {
    var g = ReplayGuard(window: 1_000_000, maxFutureSkew: 500, capacity: 2)
    try g.accept(id(1), timestamp: 1400, now: 1000)
    try g.accept(id(2), timestamp: 1400, now: 1000)
    // Full of ids stamped ahead of now: forgetting one would lift the watermark past now.
    #expect(throws: SealingError.replayed) { try g.accept(id(3), timestamp: 1450, now: 1000) }
    try g.accept(id(4), timestamp: 1000, now: 1000)  // stamped now: accepted, forgotten at once
    #expect(g.floor == 1000)
    try g.accept(id(5), timestamp: 1001, now: 1001)
    #expect(throws: SealingError.replayed) { try g.accept(id(2), timestamp: 1400, now: 1001) }
}
