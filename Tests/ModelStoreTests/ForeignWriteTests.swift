import Foundation
import Testing
@testable import ModelStore

/// A descriptor number of ours written by other code in the process (a stopped EventLoop's late
/// `eventfd_write(wakeFD, 1)` after its fd was closed and the number reused): 8 bytes, value 1.
/// It once grew a 300,000-byte shard to 300,008 and the model was still marked ready.
@Suite(.serialized) struct ForeignWriteTests {
    @Test func finishChecksTheBytesOnDiskNotTheCountReceived() async throws {
        let dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let destination = dir.path + "/m.gguf"
        let downloader = Downloader(http: HTTPClient(), maxResumes: 0, progressStep: 1)
        for expected in [Int64(100), nil] {  // the hub's size, or none (then the count must match)
            let part = try PartFile(path: destination + ".part", expectedETag: nil, onWrite: { _ in })
            #expect(Data(repeating: 7, count: 100).withUnsafeBytes { part.write($0) })
            #expect(strayWakeUp(part.fd))
            let item = DownloadItem(url: "http://127.0.0.1:1/m", destination: destination, expectedSize: expected, etag: nil)
            let error = await storeError { _ = try downloader.finish(part, item: item, announced: nil) }
            guard case let .integrity(_, detail)? = error else { throw SetupError("expected integrity, got \(String(describing: error))") }
            #expect(detail.hasPrefix("108 bytes on disk, 100 received"))
            #expect(part.fd == -1)  // closed before the check: nothing of ours can grow it after
            #expect(!FileManager.default.fileExists(atPath: destination))
            #expect(!FileManager.default.fileExists(atPath: destination + ".part"))
        }
    }

    @Test func aForeignWriteDuringAPullFailsItInsteadOfMarkingItReady() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir)
        let final = "\(dir.path)/models/\(tinyRepo)/\(tinyFile)"
        try await hub.mode("hold=100000")
        let task = Task { try await store.pull(repo: tinyRepo) }
        try await partHolds(100_000, in: dir)
        let fd = try #require(openDescriptor(of: final + ".part"), "the part is not open (or the hub never sent)")
        #expect(strayWakeUp(fd))
        try await hub.mode("release=1")
        let error = await storeError { _ = try await task.value }
        guard case let .integrity(_, detail)? = error else { throw SetupError("expected integrity, got \(String(describing: error))") }
        #expect(detail == "473352 bytes on disk, 473344 received, expected 473344")
        guard case .failed = try store.state(tinyID) else { throw SetupError("state \(try store.state(tinyID))") }
        #expect(!FileManager.default.fileExists(atPath: final))
        #expect(!FileManager.default.fileExists(atPath: final + ".part"))
    }
}

/// What a late `eventfd_write(fd, 1)` does to a regular file that now has the number.
func strayWakeUp(_ fd: Int32) -> Bool {
    var one: UInt64 = 1
    return write(fd, &one, 8) == 8
}

/// The descriptor this process has open on `path` (from /proc/self/fd), or nil.
func openDescriptor(of path: String) -> Int32? {
    let fm = FileManager.default
    let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    for name in (try? fm.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
        if (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name)) == target { return Int32(name) }
    }
    return nil
}
