import Foundation
import Testing
@testable import ModelStore

/// The finished file must hash to the `lfs.oid` sha256 of the hub's tree.
@Suite(.serialized) struct DigestTests {
    @Test func aFileThatDoesNotHashToTheHubsSHA256FailsAndIsRemoved() async throws {
        let hub = try StandInHub(), dir = try TempDir("homebase-models"), loads = LoadRecorder()
        defer { hub.stop(); dir.cleanup() }
        let store = try makeStore(hub, dir, verify: loads.verify)
        try await hub.mode("corrupt=1")  // same size, same ETag, one byte flipped
        let error = await storeError { try await store.pull(repo: tinyRepo) }
        guard case .integrity(_, let detail)? = error else { throw SetupError("expected integrity, got \(String(describing: error))") }
        #expect(detail.contains("sha256") && detail.contains("removed"))
        guard case .failed(let reason) = try store.state(tinyID) else { throw SetupError("state \(try store.state(tinyID))") }
        #expect(reason.contains("sha256"))
        let file = "\(dir.path)/models/\(tinyRepo)/\(tinyFile)"
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(!FileManager.default.fileExists(atPath: file + ".part"))
        #expect(loads.candidates.isEmpty)  // never load-checked, never ready
        // The next pull downloads it again, whole, and it checks out.
        try await store.pull(repo: tinyRepo)
        #expect(try store.state(tinyID) == .ready)
        #expect(fileBytes(file) == fileBytes(tinyModelPath))
        #expect(try await hub.log().filter { $0.host.hasPrefix("127.0.0.2:") }.last?.header("Range") == nil)
    }

    @Test func digestOfAKnownFile() throws {
        let dir = try TempDir("homebase-models")
        defer { dir.cleanup() }
        let path = dir.path + "/abc"
        _ = FileManager.default.createFile(atPath: path, contents: Data("abc".utf8))
        #expect(try FileDigest.sha256(path: path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(FileDigest.isSHA256(String(repeating: "a", count: 64)))
        #expect(!FileDigest.isSHA256(String(repeating: "d", count: 40)))  // a git oid, not a sha256
    }
}
