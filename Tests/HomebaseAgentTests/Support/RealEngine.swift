import Foundation
import Glibc
import Inference
import Testing

/// The real llama-server on the tiny model, started for a suite carrying `.realEngine` (with
/// `--alias tiny`) and stopped when it ends. Missing binary or model: a failure saying how to
/// install them, never a skip.
struct RealEngine: Sendable {
    let url: String
    private let server: ProcessBox

    @TaskLocal static var current: Result<RealEngine, TestSetupError>?

    static func get() throws -> RealEngine {
        guard let current else { throw TestSetupError("test not run inside a .realEngine suite") }
        return try current.get()
    }

    static func start() async -> Result<RealEngine, TestSetupError> {
        let env = ProcessInfo.processInfo.environment
        let dir = env["HOMEBASE_ENGINE_DIR"] ?? (NSHomeDirectory() + "/.cache/homebase/engine")
        let binary = dir + "/bin/llama-server", model = dir + "/models/tiny-seed0.gguf"
        let hint = "run scripts/engine/install.sh and scripts/engine/tiny_model.sh"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return .failure(TestSetupError("llama-server missing at \(binary): \(hint)"))
        }
        guard FileManager.default.fileExists(atPath: model) else {
            return .failure(TestSetupError("tiny model missing at \(model): \(hint)"))
        }
        do {
            let port = try deadPort()
            let server = try ProcessBox(binary, ["--model", model, "--host", "127.0.0.1", "--port", "\(port)",
                                                 "--alias", "tiny", "--threads", "2"])
            let engine = RealEngine(url: "http://127.0.0.1:\(port)", server: server)
            let quick = HTTPTimeouts(connect: .seconds(1), firstByte: .seconds(5), idle: .seconds(5))
            for _ in 0..<600 {
                guard server.process.isRunning else { throw TestSetupError("llama-server exited early") }
                if let r = try? await HTTPStreamClient().send(HTTPStreamRequest(url: engine.url + "/health", timeouts: quick)) {
                    _ = try? await r.collect()
                    if r.status == 200 { return .success(engine) }
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            server.stop()
            throw TestSetupError("llama-server never answered /health")
        } catch let e as TestSetupError {
            return .failure(e)
        } catch {
            return .failure(TestSetupError("could not start llama-server: \(error)"))
        }
    }

    func stop() { server.stop() }
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
    static var realEngine: Self { Self() }
}
