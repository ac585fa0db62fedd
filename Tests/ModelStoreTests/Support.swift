import Foundation
import Testing
@testable import ModelStore

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

struct SetupError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// ~/.cache/homebase/engine (scripts/engine): the real llama-server and the tiny model.
let engineDir = ProcessInfo.processInfo.environment["HOMEBASE_ENGINE_DIR"]
    ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/homebase/engine").path
let tinyModelPath = engineDir + "/models/tiny-seed0.gguf"
let llamaServerPath = engineDir + "/bin/llama-server"

func pythonPath() throws -> String {
    let p = packageRoot.appendingPathComponent(".cache/venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: p) else {
        throw SetupError("Python peer missing at \(p): run scripts/setup.sh")
    }
    return p
}

/// A fresh directory, removed by `cleanup()`.
struct TempDir {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("homebase-models-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// The stand-in hub (peers/hub.py): API on 127.0.0.1, CDN on 127.0.0.2; runs until `stop()`.
final class StandInHub: @unchecked Sendable {
    let process = Process()
    let stdin = Pipe()
    let port: UInt16

    init() throws {
        guard FileManager.default.fileExists(atPath: tinyModelPath) else {
            throw SetupError("tiny model missing at \(tinyModelPath): run scripts/engine/tiny_model.sh")
        }
        process.executableURL = URL(fileURLWithPath: try pythonPath())
        process.arguments = [packageRoot.appendingPathComponent("Tests/ModelStoreTests/peers/hub.py").path, tinyModelPath]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while let b = try out.fileHandleForReading.read(upToCount: 1), !b.isEmpty, b != Data("\n".utf8) { line += b }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("PORT "), let p = UInt16(text.dropFirst(5)) else {
            process.terminate()
            throw SetupError("hub did not report its port: \(text)")
        }
        port = p
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

    func stop() {
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// A port nothing listens on: bound, then closed.
func refusedPort() -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
    return UInt16(bigEndian: addr.sin_port)
}

func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

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
