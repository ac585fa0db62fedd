import Foundation
import Inference
import Testing
@testable import LocalAPI
@testable import guest

/// `guest runtime` against the scripted engine (TestSupport/peers/engine_peer.py, its Ollama scenario).
@Suite struct RuntimeVerbsTests {
    static let engine: Result<PortedProcess, Error> = Result { try startEnginePeer() }

    func dataDir() throws -> String { try temporaryDirectory("runtime") }

    @Test func addWritesTheRecordOnlyAfterTheProbePassed() async throws {
        let dir = try dataDir()
        let printed = PrintedLines()
        let url = "http://127.0.0.1:\(try Self.engine.get().port)/s/ollama"
        #expect(await RuntimeVerbs.run(arguments: ["add", url], dataDir: dir, output: { printed.add($0) }) == 0)
        let record = try #require(try RuntimeRecord.load(dataDir: dir))
        #expect(record.url == url)
        #expect(record.kind == .ollama)
        #expect(record.models.contains { $0.tag == "qwen3:0.6b" && $0.capabilities?.contains(.completion) == true })
        #expect(abs(record.verifiedAt.timeIntervalSinceNow) < 3600)
        #expect(await RuntimeVerbs.run(arguments: ["list"], dataDir: dir, output: { printed.add($0) }) == 0)
        #expect(printed.text.contains("ollama at \(url)"))
        #expect(await RuntimeVerbs.run(arguments: ["remove"], dataDir: dir, output: { printed.add($0) }) == 0)
        #expect(try RuntimeRecord.load(dataDir: dir) == nil)
    }

    @Test func aFailedProbeWritesNothing() async throws {
        let dir = try dataDir()
        let printed = PrintedLines()
        let port = try Self.engine.get().port
        // Reachable but no models: not ready.
        #expect(await RuntimeVerbs.run(arguments: ["add", "http://127.0.0.1:\(port)/s/ollama_empty"], dataDir: dir,
                                         output: { printed.add($0) }) == 1)
        // Nothing listens.
        #expect(await RuntimeVerbs.run(arguments: ["add", "http://127.0.0.1:9/"], dataDir: dir, output: { printed.add($0) },
                                         probe: { $0.timeouts = HTTPTimeouts(connect: .seconds(2), firstByte: .seconds(2), idle: .seconds(2)) }) == 1)
        #expect(!FileManager.default.fileExists(atPath: RuntimeRecord.path(dataDir: dir)))
        #expect(printed.text.contains("not added"))
        #expect(await RuntimeVerbs.run(arguments: ["add", "ftp://x"], dataDir: dir, output: { printed.add($0) }) == 2)
        #expect(await RuntimeVerbs.run(arguments: [], dataDir: dir, output: { printed.add($0) }) == 2)
    }
}
