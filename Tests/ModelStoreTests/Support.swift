// packageRoot, SetupError, pythonPath, PortedProcess and temporaryDirectory are TestSupport's,
// re-exported for every file of this target.
@_exported import TestSupport
import Foundation
import Testing
@testable import ModelStore

/// ~/.cache/homebase/engine (scripts/engine): the real llama-server and the tiny model.
let engineDir = ProcessInfo.processInfo.environment["HOMEBASE_ENGINE_DIR"]
    ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/homebase/engine").path
let tinyModelPath = engineDir + "/models/tiny-seed0.gguf"
let llamaServerPath = engineDir + "/bin/llama-server"

/// The stand-in hub (peers/hub.py): API on 127.0.0.1, CDN on 127.0.0.2; runs until `stop()`.
final class StandInHub: Sendable {
    let peer: PortedProcess
    var port: UInt16 { UInt16(peer.port) }

    init() throws {
        guard FileManager.default.fileExists(atPath: tinyModelPath) else {
            throw SetupError("tiny model missing at \(tinyModelPath): run scripts/engine/tiny_model.sh")
        }
        peer = try PortedProcess(try pythonPath(), [testsFile("ModelStoreTests/peers/hub.py"), tinyModelPath])
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func hubConfig(orgs: [String] = ["hbtest", "hbother"], token: String? = nil, pageSize: Int = 3) -> HubConfig {
        HubConfig(baseURL: baseURL, organisations: orgs, token: token, pageSize: pageSize, connectTimeout: .seconds(5), stallTime: .seconds(10))
    }

    /// Sets CDN modes (`cut`, `ignore_range`, `slow`, `reset`).
    func mode(_ query: String) async throws {
        _ = try await HTTPClient().get(HTTPRequest(url: "\(baseURL)/_mode?\(query)"))
    }

    struct Logged: Decodable {
        let host: String
        let path: String
        let headers: [String: String]
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    /// Every request either host received, in order (the log request itself excluded).
    func log() async throws -> [Logged] {
        let r = try await HTTPClient().get(HTTPRequest(url: "\(baseURL)/_log"))
        return try JSONDecoder().decode([Logged].self, from: r.body).filter { !$0.path.hasPrefix("/_") }
    }

    func stop() { peer.stop(terminate: false) }
}

/// A port nothing listens on: bound, then closed.
func refusedPort() -> UInt16 { UInt16((try? freePort()) ?? 0) }

func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Waits (120 s at most) until the part file of the tiny model's pull into `dir` holds
/// `bytes` or more: the pull is underway. Its path.
@discardableResult
func partHolds(_ bytes: Int, in dir: TempDir) async throws -> String {
    let part = "\(dir.path)/models/\(tinyRepo)/\(tinyFile).part"
    let start = ContinuousClock.now
    while (fileBytes(part)?.count ?? 0) < bytes {
        guard ContinuousClock.now - start < .seconds(120) else { throw SetupError("the pull never wrote \(bytes) bytes of its part") }
        try await Task.sleep(for: .milliseconds(10))
    }
    return part
}

/// The error `body` throws as a ModelStoreError, or nil.
func storeError(_ body: () async throws -> Void) async -> ModelStoreError? {
    do {
        try await body()
        return nil
    } catch let e as ModelStoreError {
        return e
    } catch {
        return nil
    }
}

/// A verifyLoad that records its candidates and succeeds.
final class LoadRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [LoadCandidate] = []
    var candidates: [LoadCandidate] { lock.withLock { seen } }
    var verify: ModelStore.VerifyLoad {
        { [self] c in lock.withLock { seen.append(c) } }
    }
}
