import Foundation
import Testing
@testable import ModelStore

let tinyRepo = "hbtest/Llama-Tiny-0.5M-Instruct-GGUF"
let tinyFile = "Llama-Tiny-0.5M-Instruct-F32.gguf"
let tinyID = "\(tinyRepo):F32"

func makeStore(_ hub: StandInHub, _ dir: TempDir, token: String? = nil, maxResumes: Int = 3,
               defaultSelection: String? = nil, cancelPoll: Duration = .seconds(1),
               verify: @escaping ModelStore.VerifyLoad = { _ in }) throws -> ModelStore
{
    try ModelStore(config: ModelStore.Config(directory: dir.path, hub: hub.hubConfig(token: token),
                                             defaultSelection: defaultSelection, maxResumes: maxResumes,
                                             progressStep: 4096, cancelPoll: cancelPoll), verifyLoad: verify)
}

/// Downloads against the stand-in's CDN: shards, resume after a cut and after a kill, 200 for a
/// range, offline, and where the token goes.
/// A pull of the tiny model into `dir` from the stand-in hub sending slowly (8 KiB at a time),
/// returned running once its part holds `bytes`; and the part's path.
func slowPull(_ store: ModelStore, _ hub: StandInHub, _ dir: TempDir,
              until bytes: Int) async throws -> (Task<ModelRecord, any Error>, part: String) {
    try await hub.mode("slow=8192")
    let pull = Task { try await store.pull(repo: tinyRepo) }
    return (pull, try await partHolds(bytes, in: dir))
}

/// A downloader of the stand-in hub that never resumes, and the tiny model's file as one item
/// into `dir/t.gguf` (with `etag`, the digest it must have).
func tinyDownload(_ hub: StandInHub, _ dir: TempDir, etag: String? = nil) -> (Downloader, DownloadItem) {
    let client = HubClient(config: hub.hubConfig())
    let item = DownloadItem(url: client.resolveURL(repo: tinyRepo, file: tinyFile), destination: dir.path + "/t.gguf",
                            expectedSize: 473_344, etag: etag)
    return (Downloader(http: client.http, maxResumes: 0, progressStep: 1 << 20), item)
}

@Suite(.serialized) struct DownloadTests {
    @Test func pullsShardsAndProjectorThenLoadChecks() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models"), loads = LoadRecorder()
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir, verify: loads.verify)
        let seen = ProgressLog()
        let record = try await store.pull(repo: "hbtest/SmolVLM-256M-Instruct-GGUF") { seen.add($0) }
        #expect(record.state == .ready && record.quant == "Q8_0")
        let repoDir = "\(dir.path)/models/hbtest/SmolVLM-256M-Instruct-GGUF/"
        for (file, size) in [("SmolVLM-256M-Instruct-Q8_0-00001-of-00003.gguf", 300_000),
                             ("SmolVLM-256M-Instruct-Q8_0-00003-of-00003.gguf", 123_457),
                             ("mmproj-SmolVLM-256M-Instruct-f16.gguf", 200_001)] {
            #expect(fileBytes(repoDir + file)?.count == size)
            #expect(!FileManager.default.fileExists(atPath: repoDir + file + ".part"))
        }
        #expect(loads.candidates == [LoadCandidate(id: record.id, modelPath: repoDir + "SmolVLM-256M-Instruct-Q8_0-00001-of-00003.gguf",
                                                   projectorPath: repoDir + "mmproj-SmolVLM-256M-Instruct-f16.gguf")])
        let last = try #require(seen.all.last)
        #expect(last.received == 923_458 && last.total == 923_458 && last.fraction == 1)
        #expect(seen.all.map(\.received) == seen.all.map(\.received).sorted())
    }

    @Test func tokenGoesOnlyToTheHubHost() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir, token: "hf_test_secret")
        try await store.pull(repo: tinyRepo)
        let log = try await hub.log()
        let api = log.filter { $0.host.hasPrefix("127.0.0.1:") }
        let cdn = log.filter { $0.host.hasPrefix("127.0.0.2:") }
        #expect(api.count >= 2 && cdn.count == 1)  // tree + resolve on the hub, the file on the CDN
        #expect(api.allSatisfy { $0.header("Authorization") == "Bearer hf_test_secret" })
        #expect(cdn.allSatisfy { $0.header("Authorization") == nil })
    }

    @Test func resumesAfterACutConnection() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        try await hub.mode("cut=100000")
        try await makeStore(hub, dir).pull(repo: tinyRepo)
        let cdn = try await hub.log().filter { $0.host.hasPrefix("127.0.0.2:") }
        #expect(cdn.map { $0.header("Range") } == [nil, "bytes=100000-"])
        #expect(fileBytes("\(dir.path)/models/\(tinyRepo)/\(tinyFile)") == fileBytes(tinyModelPath))
    }

    @Test func aCutWithoutRetriesFailsThenThePullResumesFromThePart() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir, maxResumes: 0)
        try await hub.mode("cut=150000")
        let error = await storeError { try await store.pull(repo: tinyRepo) }
        guard case .interrupted? = error else { throw SetupError("expected interrupted, got \(String(describing: error))") }
        guard case .failed = try store.state(tinyID) else { throw SetupError("state \(try store.state(tinyID))") }
        let part = "\(dir.path)/models/\(tinyRepo)/\(tinyFile).part"
        #expect(fileBytes(part)?.count == 150_000)
        try await store.pull(repo: tinyRepo)
        #expect(try store.state(tinyID) == .ready)
        #expect(try await hub.log().last?.header("Range") == "bytes=150000-")
        #expect(fileBytes("\(dir.path)/models/\(tinyRepo)/\(tinyFile)") == fileBytes(tinyModelPath))
    }

    @Test func aServerIgnoringTheRangeRestartsCleanly() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let folder = "\(dir.path)/models/\(tinyRepo)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: "\(folder)/\(tinyFile).part", contents: Data(repeating: 0xEE, count: 1000))
        try await hub.mode("ignore_range=1")
        try await makeStore(hub, dir).pull(repo: tinyRepo)
        #expect(try await hub.log().last?.header("Range") == "bytes=1000-")  // asked, got 200
        #expect(fileBytes("\(folder)/\(tinyFile)") == fileBytes(tinyModelPath))
    }

    @Test func resumesAfterTheDownloadingTaskIsKilled() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir)
        let (task, part) = try await slowPull(store, hub, dir, until: 50_000)
        task.cancel()
        let error = await storeError { _ = try await task.value }
        #expect(error == .cancelled)
        let kept = try #require(fileBytes(part)?.count)
        #expect(kept > 0 && kept < 473_344)
        #expect(try store.state(tinyID) == .failed(reason: "interrupted; pull again to resume"))
        try await hub.mode("reset=1")
        try await store.pull(repo: tinyRepo)
        #expect(try await hub.log().last?.header("Range") == "bytes=\(kept)-")
        #expect(fileBytes("\(dir.path)/models/\(tinyRepo)/\(tinyFile)") == fileBytes(tinyModelPath))
    }

    @Test func completeFilesAreSkipped() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let (downloader, item) = tinyDownload(hub, dir)
        try await downloader.run([item]) { _ in }
        let before = try await hub.log().count
        try await downloader.run([item]) { _ in }
        #expect(try await hub.log().count == before)
        #expect(fileBytes(dir.path + "/t.gguf") == fileBytes(tinyModelPath))
    }

    @Test func aWrongETagIsRefusedAndThePartRemoved() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let (downloader, item) = tinyDownload(hub, dir, etag: String(repeating: "0", count: 64))
        let error = await storeError { try await downloader.run([item]) { _ in } }
        guard case .integrity? = error else { throw SetupError("expected integrity, got \(String(describing: error))") }
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/t.gguf.part"))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/t.gguf"))
    }

    @Test func offlineFailsAtOnceWithTheOfflineError() async throws {
        let dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let config = HubConfig(baseURL: "http://127.0.0.1:\(refusedPort())", organisations: [])
        let store = try ModelStore(config: ModelStore.Config(directory: dir.path, hub: config), verifyLoad: { _ in })
        let error = await storeError { try await store.pull(repo: tinyRepo) }
        guard case .offline? = error else { throw SetupError("expected offline, got \(String(describing: error))") }
        #expect(try store.list().isEmpty)
    }
}

final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [DownloadProgress] = []
    func add(_ p: DownloadProgress) { lock.withLock { items.append(p) } }
    var all: [DownloadProgress] { lock.withLock { items } }
}
