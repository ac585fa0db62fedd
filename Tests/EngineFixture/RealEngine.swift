import Foundation
import Inference
import Testing
import TestSupport

/// The real llama-server on the tiny model (`--alias tiny`), started for a suite carrying
/// `.realEngine` and stopped when it ends; with `nonEngine`, a plain `python -m http.server`
/// beside it (something that answers, but no inference engine). Missing binary or model: a
/// failure saying how to install them, never a skip. InferenceTests and HomebaseAgentTests run it.
public struct RealEngine: Sendable {
    public let url: String
    /// The plain web server's URL (nil unless the suite asked for it).
    public let nonEngineURL: String?
    /// llama-server's log (stderr), read by tests that check what the engine saw.
    public let logPath: String
    private let server: ProcessBox
    private let nonEngine: ProcessBox?

    @TaskLocal static var current: Result<RealEngine, SetupError>?

    /// The running engine, or the failure that kept it from starting.
    public static func get() throws -> RealEngine {
        guard let current else { throw SetupError("test not run inside a .realEngine suite") }
        return try current.get()
    }

    public static let installHint = "run scripts/engine/install.sh and scripts/engine/tiny_model.sh (the engine and the tiny model)"

    /// `jinja`: the model's own chat template (it renders tools; plain chat is unchanged).
    static func start(jinja: Bool, nonEngine withWeb: Bool) async -> Result<RealEngine, SetupError> {
        let env = ProcessInfo.processInfo.environment
        let dir = env["HOMEBASE_ENGINE_DIR"] ?? (NSHomeDirectory() + "/.cache/homebase/engine")
        let binary = dir + "/bin/llama-server", model = dir + "/models/tiny-seed0.gguf"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return .failure(SetupError("llama-server missing at \(binary): \(installHint)"))
        }
        guard FileManager.default.fileExists(atPath: model) else {
            return .failure(SetupError("tiny model missing at \(model): \(installHint)"))
        }
        var started: [ProcessBox] = []
        do {
            let port = try freePort()
            let log = NSTemporaryDirectory() + "homebase-llama-\(port).log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            let server = try ProcessBox(binary, ["--model", model, "--host", "127.0.0.1", "--port", "\(port)",
                                                 "--alias", "tiny", "--threads", "2"] + (jinja ? ["--jinja"] : []), log: log)
            started.append(server)
            var web: (box: ProcessBox, url: String)?
            if withWeb {
                let webPort = try freePort()
                let box = try ProcessBox(try pythonPath(), ["-m", "http.server", "\(webPort)", "--bind", "127.0.0.1",
                                                           "--directory", NSTemporaryDirectory()])
                started.append(box)
                web = (box, "http://127.0.0.1:\(webPort)")
            }
            let engine = RealEngine(url: "http://127.0.0.1:\(port)", nonEngineURL: web?.url, logPath: log,
                                    server: server, nonEngine: web?.box)
            try await waitUntilAnswering(engine.url + "/health", process: server)
            if let web { try await waitUntilAnswering(web.url + "/", process: web.box) }
            return .success(engine)
        } catch {
            for box in started { box.stop() }
            return .failure(error as? SetupError ?? SetupError("could not start the real engine: \(error)"))
        }
    }

    func stop() {
        server.stop()
        nonEngine?.stop()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// Waits (hang guard 20 s, polling) until the engine's log has a line containing `text`.
    public func waitForLog(_ text: String) async throws -> Bool {
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
            guard process.process.isRunning else { throw SetupError("\(url): the process exited early") }
            if let r = try? await HTTPStreamClient().send(HTTPStreamRequest(url: url, timeouts: quick)) {
                _ = try? await r.collect()
                if r.status == 200 { return }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw SetupError("\(url) never answered 200")
    }
}

public struct RealEngineTrait: SuiteTrait, TestScoping {
    let jinja: Bool
    let nonEngine: Bool
    public var isRecursive: Bool { false }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        let engine = await RealEngine.start(jinja: jinja, nonEngine: nonEngine)
        defer { if case .success(let e) = engine { e.stop() } }
        try await RealEngine.$current.withValue(engine) { try await function() }
    }
}

extension Trait where Self == RealEngineTrait {
    /// Runs the suite against a real llama-server on the tiny model.
    public static var realEngine: Self { Self(jinja: false, nonEngine: false) }

    /// The same with the model's own chat template (`--jinja`), and with a plain web server
    /// beside it when `nonEngine` (`RealEngine.nonEngineURL`).
    public static func realEngine(jinja: Bool, nonEngine: Bool = false) -> Self { Self(jinja: jinja, nonEngine: nonEngine) }
}
