import Foundation
import Testing
@testable import ModelStore

let oneTier = QuantTier(quant: Quant("F32")!, files: [tinyFile], projector: nil, bytes: 473_344, exact: true)

/// The five states and the races between a download task, the user and the load check.
@Suite(.serialized) struct StoreTests {
    func offlineStore(_ dir: TempDir, defaultSelection: String? = nil) throws -> ModelStore {
        let hub = HubConfig(baseURL: "http://127.0.0.1:\(refusedPort())", organisations: [])
        return try ModelStore(config: ModelStore.Config(directory: dir.path, hub: hub, defaultSelection: defaultSelection),
                              verifyLoad: { _ in })
    }

    @Test func aLateProgressUpdateNeverOverwritesReady() throws {
        let dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let store = try offlineStore(dir)
        let attempt = try #require(try store.begin(id: tinyID, repo: tinyRepo, quant: "F32", tier: oneTier, provisional: false))
        #expect(store.recordProgress(id: tinyID, attempt: attempt, received: 100))
        #expect(store.settle(id: tinyID, attempt: attempt, to: .ready))
        #expect(!store.recordProgress(id: tinyID, attempt: attempt, received: 200))
        #expect(!store.settle(id: tinyID, attempt: attempt, to: .failed(reason: "late")))
        #expect(try store.state(tinyID) == .ready)
        #expect(try store.begin(id: tinyID, repo: tinyRepo, quant: "F32", tier: oneTier, provisional: false) == nil)
    }

    @Test func aCancelledDownloadIsNeverResurrectedNorDemoted() throws {
        let dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let store = try offlineStore(dir)
        let attempt = try #require(try store.begin(id: tinyID, repo: tinyRepo, quant: "F32", tier: oneTier, provisional: false))
        #expect(try store.markCancelled(id: tinyID))
        #expect(!store.recordProgress(id: tinyID, attempt: attempt, received: 5))
        #expect(!store.settle(id: tinyID, attempt: attempt, to: .ready))
        #expect(!store.settle(id: tinyID, attempt: attempt, to: .failed(reason: "cut")))
        #expect(try store.state(tinyID) == .absent)
        // A newer pull is not disturbed by the old attempt either.
        let next = try #require(try store.begin(id: tinyID, repo: tinyRepo, quant: "F32", tier: oneTier, provisional: false))
        #expect(next == attempt + 2)
        #expect(!store.settle(id: tinyID, attempt: attempt, to: .ready))
        #expect(try store.state(tinyID) == .downloading(DownloadProgress(received: 0, total: 473_344)))
    }

    @Test func unsupportedIsTerminal() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir) { _ in throw ModelStoreError.unsupported(model: tinyID, detail: "unknown architecture") }
        let first = await storeError { try await store.pull(repo: tinyRepo) }
        #expect(first == .unsupported(model: tinyID, detail: "unknown architecture"))
        #expect(try store.state(tinyID) == .unsupported(reason: "unknown architecture"))
        #expect(!FileManager.default.fileExists(atPath: "\(dir.path)/models/\(tinyRepo)/\(tinyFile)"))
        let again = await storeError { try await store.pull(repo: tinyRepo) }
        #expect(again == .unsupported(model: tinyID, detail: "unknown architecture"))
        #expect(throws: ModelStoreError.self) { try store.select(tinyID) }
    }

    @Test func cancelDuringTheLoadCheckWinsOverItsLateSuccess() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models"), gate = LoadGate()
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir, verify: gate.verify)
        let pull = Task { try await store.pull(repo: tinyRepo) }
        while !gate.hasEntered { try await Task.sleep(for: .milliseconds(5)) }
        // Selecting a model before it is ready is allowed.
        try store.select(tinyID)
        #expect(try store.selection() == tinyID)
        let cancel = Task { try await store.cancel(tinyID) }
        while try store.state(tinyID) != .absent { try await Task.sleep(for: .milliseconds(5)) }
        gate.release()  // the load check now "succeeds", too late
        try await cancel.value
        #expect(await storeError { _ = try await pull.value } == .cancelled)
        #expect(try store.state(tinyID) == .absent)
        let folder = "\(dir.path)/models/\(tinyRepo)"
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/\(tinyFile)"))
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/\(tinyFile).part"))
    }

    @Test func cancelMidDownloadRemovesThePartAndStaysAbsent() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir)
        let (pull, part) = try await slowPull(store, hub, dir, until: 20_000)
        try await store.cancel(tinyID)
        #expect(await storeError { _ = try await pull.value } == .cancelled)
        #expect(try store.state(tinyID) == .absent)
        #expect(!FileManager.default.fileExists(atPath: part))
    }

    @Test func deleteRemovesFilesAndTheSelectionFallsBack() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir, defaultSelection: "builtin")
        #expect(try store.selection() == "builtin")
        try await store.pull(repo: tinyRepo)
        try store.select(tinyID)
        #expect(try store.selection() == tinyID)
        try await store.delete(tinyID)
        #expect(try store.selection() == "builtin")
        #expect(try store.list().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: "\(dir.path)/models/\(tinyRepo)/\(tinyFile)"))
    }

    @Test func customReposPersistWithoutDuplicatesAndStayProvisionalUntilLoaded() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        do {
            let store = try makeStore(hub, dir)
            #expect(try store.addCustomRepo(tinyRepo))
            #expect(try !store.addCustomRepo(tinyRepo.uppercased()))  // same repo, other case
            #expect(throws: ModelStoreError.invalidRepoID("not a repo")) { try store.addCustomRepo("not a repo") }
        }
        let store = try makeStore(hub, dir)  // reopened: persisted
        #expect(try store.customRepos().map(\.repo) == [tinyRepo])
        #expect(try store.customRepos().first?.provisional == true)
        try await store.pull(repo: tinyRepo, provisional: true)
        #expect(try store.customRepos().first?.provisional == false)
        #expect(try store.record(tinyID).provisional == false)
        // A bad id is accepted without a network check and fails at download, clearly.
        #expect(try store.addCustomRepo("someone/Does-Not-Exist-GGUF"))
        let error = await storeError { try await store.pull(repo: "someone/Does-Not-Exist-GGUF", provisional: true) }
        #expect(error == .repoUnusable(repo: "someone/Does-Not-Exist-GGUF", detail: "not found on the hub (HTTP 404)"))
    }

    @Test func readyOnlyAfterTheRealLlamaServerLoadedTheModel() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models")
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir, verify: llamaServerVerify())
        let record = try await store.pull(repo: tinyRepo)
        #expect(record.state == .ready)
        // Garbage weights (the stand-in's fake shards): llama-server refuses them, so never ready.
        await #expect(throws: LoadFailed.self) { try await store.pull(repo: "hbtest/SmolVLM-256M-Instruct-GGUF") }
        guard case let .failed(reason) = try store.state("hbtest/SmolVLM-256M-Instruct-GGUF:Q8_0") else {
            throw SetupError("expected failed")
        }
        #expect(reason.contains("llama-server exited"))
    }
}
