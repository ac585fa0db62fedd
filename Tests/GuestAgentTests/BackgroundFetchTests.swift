import Foundation
@testable import GuestAgent
import ModelStore
import Testing

/// How a sibling's choice of a missing model becomes a detached download: the wish is written
/// first, then a child is spawned in its own session, never while the model's lock is held.
/// The child here is a labelled fake (a shell script standing in for `guest models fetch-wanted`)
/// that writes its arguments and session to the fetch log; the real one runs in
/// EndToEndTests/BackgroundDownloadEndToEndTests.
@Suite struct BackgroundFetchTests {
    let id = "owner/model-GGUF:Q4_K_M"

    /// A context whose "guest executable" is the fake fetcher.
    func context() throws -> GuestContext {
        let dir = try temporaryDirectory("guest-tests")
        let fake = dir + "/fake-guest"
        try """
            #!/bin/sh
            echo "args: $*"
            echo "session: $(cut -d' ' -f6 /proc/$$/stat) pid: $$"
            """.write(toFile: fake, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: fake)
        let paths = GuestPaths(dataDirectory: dir + "/guest")
        return try GuestContext(GuestConfiguration(paths: paths, environment: [BackgroundFetch.binaryVariable: fake]))
    }

    func waitForLog(_ c: GuestContext, containing word: String) async throws -> String {
        for _ in 0..<1000 {  // "it arrived at all": up to ~20 s
            let text = (try? String(contentsOfFile: c.modelStore.fetchLogPath, encoding: .utf8)) ?? ""
            if text.contains(word) { return text }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw SetupError("no \(word) in the fetch log")
    }

    @Test func aMissingModelIsWishedThenFetchedByADetachedChild() async throws {
        let c = try context()
        LocalModelChoice.apply(id, fetch: BackgroundFetch(c))
        let wish = try #require(try c.modelStore.wanted(id))
        #expect(wish.selectWhenReady && wish.failure == nil)
        let log = try await waitForLog(c, containing: "session:")
        #expect(log.contains("args: models fetch-wanted \(id) --data-dir \(c.paths.dataDirectory)"), "\(log)")
        let words = log.split(whereSeparator: { $0 == " " || $0 == "\n" })
        let session = words.firstIndex(of: "session:").map { words[$0 + 1] }, pid = words.firstIndex(of: "pid:").map { words[$0 + 1] }
        #expect(session != nil && session == pid, "the fetcher leads its own session: \(log)")
        #expect(c.log.lastLine(containing: "in the background")?.contains("downloading \(id) in the background") == true)
    }

    @Test func nothingIsSpawnedWhileTheModelsLockIsHeld() async throws {
        let c = try context()
        var lock = try FetchLock.acquire(c.modelStore.fetchLockPath(id))
        #expect(lock != nil)
        BackgroundFetch(c).want(id, select: true)
        BackgroundFetch(c).resume()
        #expect(try c.modelStore.wanted(id) != nil)
        #expect(!FileManager.default.fileExists(atPath: c.modelStore.fetchLogPath), "a second fetcher was started")
        lock = nil
        // Released (its holder died): the next start resumes it.
        BackgroundFetch(c).resume()
        _ = try await waitForLog(c, containing: "args: models fetch-wanted \(id)")
    }

    @Test func aFailedWishIsNotRetriedAtEveryStartAndSaysHowToRetry() throws {
        let c = try context()
        try c.modelStore.want(id, select: true)
        try c.modelStore.recordWishFailure(id, "offline")
        BackgroundFetch(c).resume()
        #expect(!FileManager.default.fileExists(atPath: c.modelStore.fetchLogPath))
        #expect(GuestStatus.gather(c).downloads.first?.line.contains("retry: guest models pull \(id)") == true)
    }
}
