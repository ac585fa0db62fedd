import Foundation
import Glibc
import Testing
@testable import Inference

/// The real llama-server on the tiny model, plus a plain `python -m http.server`, started once
/// for the suite that carries `.realEngine` and stopped when it ends.
struct RealEngine: Sendable {
    let url: String
    let nonEngineURL: String
    /// llama-server's log (stderr), read by tests that check what the engine saw.
    let logPath: String
    private let server: ProcessBox
    private let nonEngine: ProcessBox

    @TaskLocal static var current: Result<RealEngine, TestSetupError>?

    /// The running engine, or a failure saying how to install it (never a silent skip).
    static func get() throws -> RealEngine {
        guard let current else { throw TestSetupError("test not run inside the .realEngine suite") }
        return try current.get()
    }

    static let installHint = "run scripts/engine/install.sh and scripts/engine/tiny_model.sh (the engine and the tiny model)"

    static func start() async -> Result<RealEngine, TestSetupError> {
        let env = ProcessInfo.processInfo.environment
        let dir = env["HOMEBASE_ENGINE_DIR"] ?? (NSHomeDirectory() + "/.cache/homebase/engine")
        let binary = dir + "/bin/llama-server", model = dir + "/models/tiny-seed0.gguf"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return .failure(TestSetupError("llama-server missing at \(binary): \(installHint)"))
        }
        guard FileManager.default.fileExists(atPath: model) else {
            return .failure(TestSetupError("tiny model missing at \(model): \(installHint)"))
        }
        do {
            let port = try deadPort(), webPort = try deadPort()
            let log = NSTemporaryDirectory() + "homebase-llama-\(port).log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let server = try ProcessBox(binary, ["--model", model, "--host", "127.0.0.1", "--port", "\(port)",
                                                 "--alias", "tiny", "--threads", "2", "--jinja"], log: log)
            let web = try ProcessBox(try pythonPath(), ["-m", "http.server", "\(webPort)", "--bind", "127.0.0.1",
                                                       "--directory", NSTemporaryDirectory()])
            let engine = RealEngine(url: "http://127.0.0.1:\(port)", nonEngineURL: "http://127.0.0.1:\(webPort)",
                                    logPath: log, server: server, nonEngine: web)
            try await waitUntilAnswering(engine.url + "/health", process: server)
            try await waitUntilAnswering(engine.nonEngineURL + "/", process: web)
            return .success(engine)
        } catch let e as TestSetupError {
            return .failure(e)
        } catch {
            return .failure(TestSetupError("could not start the real engine: \(error)"))
        }
    }

    func stop() {
        server.stop()
        nonEngine.stop()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// Waits (hang guard 20 s, polling) until the engine's log has a line containing `text`.
    func waitForLog(_ text: String) async throws -> Bool {
        for _ in 0..<200 {
            if let log = try? String(contentsOfFile: logPath, encoding: .utf8), log.contains(text) { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Polls until `url` answers 200 (a hang guard of 60 s, not a speed assertion).
    private static func waitUntilAnswering(_ url: String, process: ProcessBox) async throws {
        let quick = HTTPTimeouts(connect: .seconds(1), firstByte: .seconds(5), idle: .seconds(5))
        for _ in 0..<600 {
            guard process.process.isRunning else { throw TestSetupError("\(url): the process exited early") }
            if let r = try? await HTTPStreamClient().send(HTTPStreamRequest(url: url, timeouts: quick)) {
                _ = try? await r.collect()
                if r.status == 200 { return }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSetupError("\(url) never answered 200")
    }
}

struct RealEngineTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?,
                      performing function: @Sendable () async throws -> Void) async throws {
        let engine = await RealEngine.start()
        defer { if case .success(let e) = engine { e.stop() } }
        try await RealEngine.$current.withValue(engine) { try await function() }
    }
}

extension Trait where Self == RealEngineTrait {
    /// Runs the suite against a real llama-server on the tiny model (and a non-engine web server).
    static var realEngine: Self { Self() }
}
