import Foundation
import Testing
@testable import ModelStore

/// Wishes (a sibling's choice of a model not yet here) on the real store database, and the
/// per-model fetch lock that keeps their downloads to one.
@Suite struct WantedTests {
    func store(_ dir: TempDir) throws -> ModelStore {
        let hub = HubConfig(baseURL: "http://127.0.0.1:\(refusedPort())", organisations: [])
        return try ModelStore(config: ModelStore.Config(directory: dir.path, hub: hub), verifyLoad: { _ in })
    }

    func makeReady(_ store: ModelStore, _ id: String) throws {
        let attempt = try #require(try store.begin(id: id, repo: tinyRepo, quant: String(id.split(separator: ":").last!),
                                                   tier: oneTier, provisional: false))
        #expect(store.settle(id: id, attempt: attempt, to: .ready))
    }

    @Test func aWishIsSelectedWhenReadyUnlessANewerChoiceReplacedIt() throws {
        let dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let store = try store(dir)
        let older = tinyRepo + ":Q8_0", newer = tinyRepo + ":Q4_K_M"
        try store.want(older, select: true)
        #expect(try store.fulfilWish(older) == false, "not ready yet: nothing to fulfil")
        #expect(try store.wanted(older) != nil)
        try store.want(newer, select: true)
        #expect(try store.wanted(older)?.selectWhenReady == false)
        #expect(try store.wanted().map(\.id).sorted() == [newer, older].sorted())

        try makeReady(store, older)
        #expect(try store.fulfilWish(older) == false)
        #expect(try store.wanted(older) == nil)
        #expect(try store.selection() == nil)
        try makeReady(store, newer)
        #expect(try store.fulfilWish(newer))
        #expect(try store.selection() == newer)
        #expect(try store.wanted().isEmpty)
    }

    @Test func aPersonsOwnChoiceOrCancelEndsTheWish() throws {
        let dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let store = try store(dir)
        let id = tinyRepo + ":Q8_0"
        try store.want(id, select: true)
        try store.replaceWishes(with: nil)
        #expect(try store.wanted(id)?.selectWhenReady == false)
        try store.dropWish(id)
        #expect(try store.wanted(id) == nil)
        #expect(throws: ModelStoreError.invalidRepoID("no-quant")) { try store.want("no-quant", select: true) }
    }

    @Test func aFailedWishSaysWhyAndHowToRetryAndANewWishClearsIt() throws {
        let dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let store = try store(dir)
        let id = tinyRepo + ":Q8_0"
        try store.want(id, select: true)
        try store.recordWishFailure(id, "offline: cannot reach 127.0.0.2")
        let failed = try #require(store.backgroundDownloads().first)
        #expect(failed.phase == .failed && failed.retry == "guest models pull \(id)")
        #expect(failed.line.contains("failed: offline: cannot reach 127.0.0.2; retry: guest models pull \(id)"), "\(failed.line)")
        try store.want(id, select: true)
        #expect(try store.wanted(id)?.failure == nil)
        #expect(store.backgroundDownloads().first?.phase == .stopped)
    }

    @Test func theFetchLockIsExclusiveAndGoneWithItsHolder() throws {
        let dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let store = try store(dir)
        let id = tinyRepo + ":Q8_0"
        try store.want(id, select: false)
        let path = store.fetchLockPath(id)
        #expect(!FetchLock.isHeld(path))
        var held = try FetchLock.acquire(path)
        #expect(held != nil)
        #expect(try FetchLock.acquire(path) == nil, "a second holder got the lock")
        #expect(FetchLock.isHeld(path))
        #expect(store.backgroundDownloads().first?.phase == .downloading)
        #expect(store.backgroundDownloads().first?.line.contains("downloading in the background since") == true)
        held = nil
        #expect(!FetchLock.isHeld(path))
        #expect(store.backgroundDownloads().first?.phase == .stopped)
        #expect(try FetchLock.acquire(path) != nil)
    }
}
