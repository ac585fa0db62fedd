import Foundation
import Inference
import Testing
@testable import LocalAPI

/// `guest runtime` against InferenceTests' scripted engine (its Ollama scenario).
@Suite struct RuntimeCommandTests {
    final class Engine: @unchecked Sendable {
        let process = Process()
        let stdin = Pipe()
        var port = 0
    }

    static let engine: Result<Engine, Error> = Result {
        let e = Engine()
        e.process.executableURL = packageRoot.appendingPathComponent(".cache/venv/bin/python")
        e.process.arguments = [packageRoot.appendingPathComponent("Tests/InferenceTests/peers/engine_peer.py").path]
        let out = Pipe()
        e.process.standardOutput = out
        e.process.standardInput = e.stdin
        try e.process.run()
        var line = Data()
        while let b = try out.fileHandleForReading.read(upToCount: 1), !b.isEmpty, b != Data("\n".utf8) { line += b }
        guard let p = Int(String(decoding: line, as: UTF8.self).dropFirst(5)) else { throw TestSetupError("engine peer gave no port") }
        e.port = p
        return e
    }

    func dataDir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("runtime-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test func addWritesTheRecordOnlyAfterTheProbePassed() async throws {
        let dir = try dataDir()
        let printed = PrintedLines()
        let url = "http://127.0.0.1:\(try Self.engine.get().port)/s/ollama"
        #expect(await RuntimeCommand.run(arguments: ["add", url], dataDir: dir, output: { printed.add($0) }) == 0)
        let record = try #require(try RuntimeRecord.load(dataDir: dir))
        #expect(record.url == url)
        #expect(record.kind == .ollama)
        #expect(record.models.contains { $0.tag == "qwen3:0.6b" && $0.capabilities?.contains(.completion) == true })
        #expect(abs(record.verifiedAt.timeIntervalSinceNow) < 3600)
        #expect(await RuntimeCommand.run(arguments: ["list"], dataDir: dir, output: { printed.add($0) }) == 0)
        #expect(printed.text.contains("ollama at \(url)"))
        #expect(await RuntimeCommand.run(arguments: ["remove"], dataDir: dir, output: { printed.add($0) }) == 0)
        #expect(try RuntimeRecord.load(dataDir: dir) == nil)
    }

    @Test func aFailedProbeWritesNothing() async throws {
        let dir = try dataDir()
        let printed = PrintedLines()
        let port = try Self.engine.get().port
        // Reachable but no models: not ready.
        #expect(await RuntimeCommand.run(arguments: ["add", "http://127.0.0.1:\(port)/s/ollama_empty"], dataDir: dir,
                                         output: { printed.add($0) }) == 1)
        // Nothing listens.
        #expect(await RuntimeCommand.run(arguments: ["add", "http://127.0.0.1:9/"], dataDir: dir, output: { printed.add($0) },
                                         probe: { $0.timeouts = HTTPTimeouts(connect: .seconds(2), firstByte: .seconds(2), idle: .seconds(2)) }) == 1)
        #expect(!FileManager.default.fileExists(atPath: RuntimeRecord.path(dataDir: dir)))
        #expect(printed.text.contains("not added"))
        #expect(await RuntimeCommand.run(arguments: ["add", "ftp://x"], dataDir: dir, output: { printed.add($0) }) == 2)
        #expect(await RuntimeCommand.run(arguments: [], dataDir: dir, output: { printed.add($0) }) == 2)
    }
}
