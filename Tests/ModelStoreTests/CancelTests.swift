import Foundation
import Testing
@testable import ModelStore

/// `guest models cancel` runs in another process than the pull it stops: two stores on one
/// directory stand in for the two processes.
@Suite(.serialized) struct CancelTests {
    @Test func aCancelFromAnotherProcessStopsTheRunningPull() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let puller = try makeStore(hub, dir, cancelPoll: .milliseconds(20))
        let canceller = try makeStore(hub, dir)
        // The CDN sends 100,000 bytes, then holds the rest for up to 600 s.
        try await hub.mode("hold=100000&hold_wait=600")
        let pull = Task { try await puller.pull(repo: tinyRepo) }
        let part = try await partHolds(100_000, in: dir)
        try await canceller.cancel(tinyID)
        // The puller notices by itself, long before the hold would end.
        let ended = Task { await storeError { _ = try await pull.value } }
        let error = try await value(of: ended, within: .seconds(120))
        #expect(error == .cancelled)
        #expect(try canceller.state(tinyID) == .absent)
        #expect(!FileManager.default.fileExists(atPath: part))
        try await hub.mode("release=1")
    }
}

/// The task's value, or a failure when it has not come within `bound` (only "did it arrive at
/// all"; the task is left running then).
func value<T: Sendable>(of task: Task<T, Never>, within bound: Duration) async throws -> T {
    let slot = Slot<T>()
    Task { let v = await task.value; slot.lock.withLock { slot.value = v } }
    let start = ContinuousClock.now
    while true {
        if let v = slot.lock.withLock({ slot.value }) { return v }
        guard ContinuousClock.now - start < bound else { throw SetupError("nothing within \(bound)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

final class Slot<T>: @unchecked Sendable {  // `value` behind `lock`
    let lock = NSLock()
    var value: T?
}
