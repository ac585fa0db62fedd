import Foundation
@testable import GuestAgent
@testable import OnDeviceEngine
import Glibc
import Testing

/// `guest runtime` against a real runtime: llama-server on the tiny model, started by the test
/// the way a user runs theirs. Test before persist: nothing is stored for a runtime that fails.
@Suite(.serialized) struct RuntimeCLITests {
    @Test func addProbesTheRealRuntimeThenChatRoutesToIt() throws {
        let tiny = try Engine.tiny()
        let port = try freeLoopbackPort()
        let engine = Process()
        engine.executableURL = URL(fileURLWithPath: Engine.binary)
        engine.arguments = ["--model", tiny.path, "--host", "127.0.0.1", "--port", "\(port)", "--alias", "tiny", "--threads", "1"]
        engine.standardOutput = FileHandle.nullDevice
        engine.standardError = FileHandle.nullDevice
        engine.standardInput = FileHandle.nullDevice
        try engine.run()
        defer { kill(engine.processIdentifier, SIGKILL); engine.waitUntilExit() }

        let g = try GuestRunner()
        let url = "http://127.0.0.1:\(port)"
        // llama-server refuses requests (503) while it loads its model, and `add` keeps nothing
        // then: retry until it is ready (a hang guard, not a speed check).
        var added: CLITests.Run?
        for _ in 0..<600 {
            let r = try g.run("runtime", "add", url)
            if r.status == 0 { added = r; break }
            #expect(!FileManager.default.fileExists(atPath: g.dataDir + "/runtime.json"), "a failed probe stores nothing")
            usleep(100_000)
        }
        let r = try #require(added, "llama-server never passed the probe")
        #expect(r.out.hasPrefix("added llama-server at \(url): 1 model(s)\n"), "\(r.out)")
        let list = try g.run("runtime", "list")
        #expect(list.out.hasPrefix("llama-server at \(url), verified "))
        #expect(list.out.contains("  tiny"))

        // The router reads the record: chat answers from the runtime, named local-endpoint.
        for (name, value) in [("model.source", "external"), ("ollama.model", "tiny")] {
            #expect(try g.run("settings", "set", name, value).status == 0)
        }
        let chat = try g.run("chat", "hello", "--max-tokens", "8")
        #expect(chat.status == 0, "\(chat.err)")
        let line = try #require(chat.out.split(separator: "\n").last)
        #expect(line.hasPrefix("[local-endpoint · first token"), "\(line)")
        #expect(try g.run("status").out.contains("local runtime: \(url)"))

        #expect(try g.run("runtime", "remove").out == "runtime removed\n")
        #expect(!FileManager.default.fileExists(atPath: g.dataDir + "/runtime.json"))
    }

    @Test func aDeadRuntimeIsNotAddedAndBadLinesExit2() throws {
        let g = try GuestRunner()
        let dead = try g.run("runtime", "add", "http://127.0.0.1:\(try freeLoopbackPort())")
        #expect(dead.status == 1)
        #expect(dead.out.hasPrefix("not added"), "\(dead.out)")
        #expect(!FileManager.default.fileExists(atPath: g.dataDir + "/runtime.json"))
        #expect(try g.run("runtime", "list").out == "no runtime on file\n")
        let help = try g.run("runtime", "--help")
        #expect(help.status == 0 && help.out.contains("add URL [--kind KIND]"))
        for args in [["runtime"], ["runtime", "add"], ["runtime", "add", "ftp://x"], ["runtime", "list", "x"],
                     ["runtime", "add", "http://127.0.0.1:1", "--kind", "tgi"], ["runtime", "frob"]] {
            let r = try g.run(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.err.contains("guest runtime --help"), "\(args): \(r.err)")
        }
    }
}
