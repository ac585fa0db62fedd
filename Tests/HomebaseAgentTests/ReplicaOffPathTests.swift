import Foundation
import Inference
import Synchronization
import Testing
import Wire
@testable import HomebaseAgent

/// The replica write is off the request path: the engine is called (and `accept` sent) before
/// the conversation reaches the disk, and the copy with the answer is there before `done`.
/// Real relay, real SQLite (a second process holds its write lock), the scripted engine.
@Suite(.serialized) struct ReplicaOffPathTests {
    /// Every line the agent logs.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ l: String) { lines.withLock { $0.append(l) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A second process (like a `homebase` CLI command) holding the store's write lock until released.
    final class StoreLock {
        let process = Process()
        let input = Pipe(), output = Pipe()

        init(_ path: String) throws {
            process.executableURL = URL(fileURLWithPath: anyPython)
            process.arguments = ["-c", """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1], isolation_level=None)
                c.execute("BEGIN IMMEDIATE")
                print("locked", flush=True)
                sys.stdin.readline()
                c.execute("ROLLBACK")
                """, path]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            guard line.hasPrefix("locked") else { throw TestSetupError("the lock holder said \(line)") }
        }

        func release() {
            input.fileHandleForWriting.write(Data("go\n".utf8))
            process.waitUntilExit()
        }
    }

    static func release(_ id: String) async throws {
        _ = try await HTTPStreamClient().send(HTTPStreamRequest(url: "http://127.0.0.1:\(try ScriptedEngine.port())/release/\(id)"))
            .collect()
    }

    @Test func theEngineIsCalledWhileTheReplicaWriteWaitsAndTheAnswerIsOnDiskBeforeDone() async throws {
        let id = UUID().uuidString.lowercased()
        let logs = Lines()
        try await HostFixture.with(runtime: (try ScriptedEngine.url("gated", id: id), ["scripted"]),
                                   configure: { $0.log = { logs.add($0) } }) { f in
            let conversation = Bytes16.random()
            let question: [AppMessage.ChatMessage] = [.init(role: .user, content: "Say hello")]
            let lock = try StoreLock(f.files.storePath)
            let asked = Task { await f.guest.ask(request("scripted", conversation: conversation, messages: question), to: f.host) }
            // The engine has the request while the store is still locked: nothing waited for the disk.
            try await eventually("the engine has the request") { try await !ScriptedEngine.records(id).isEmpty }
            #expect(!logs.all.contains { $0.hasPrefix("replica:") }, "the replica write failed before the engine was called")
            lock.release()
            try await Self.release(id)
            let (_, answer) = await asked.value
            #expect(answer.done != nil)
            #expect(answer.text == "Hello!")
            // `done` came after the answer was on disk, and no earlier write landed over it.
            #expect(try f.agent.store.loadReplica(conversation.bytes) == question + [.init(role: .assistant, content: "Hello!")])
            #expect(!logs.all.contains { $0.hasPrefix("replica:") })
        }
    }

    @Test func theTraceOrdersTheStepsAndHoldsNoText() async throws {
        let logs = Lines()
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted"]),
                                   configure: { $0.log = { logs.add($0) }; $0.traceTimings = true }) { f in
            let secret = "the secret prompt \(UUID())"
            let (_, answer) = await f.guest.ask(request("scripted", secret), to: f.host)
            #expect(answer.done != nil)
            try await eventually("a timing line") { logs.all.contains { $0.hasPrefix("timing: ") } }
            let line = try #require(logs.all.first { $0.hasPrefix("timing: ") })
            #expect(!line.contains(secret) && !line.contains("Hello"))
            let t = try #require(TimingTrace.parse(line))
            for step in TimingTrace.Step.allCases { #expect(t[step] != nil, "\(step.name) missing") }
            let at = { (s: TimingTrace.Step) in t[s] ?? 0 }
            // The link read the frame before the Courier handed the opened request on.
            #expect(at(.linkRead) <= at(.received))
            #expect(at(.received) <= at(.admitted))
            #expect(at(.admitted) <= at(.engineCalled))
            #expect(at(.engineCalled) <= at(.acceptPosted))
            // The replica is written after the engine was called and `accept` handed to the link.
            #expect(at(.acceptPosted) <= at(.replicaWritten))
            #expect(at(.firstEngineText) <= at(.firstChunkPosted))
        }
    }

    @Test func withoutTheSwitchThereIsNoTrace() async throws {
        let logs = Lines()
        try await HostFixture.with(runtime: (try ScriptedEngine.url("ok"), ["scripted"]),
                                   configure: { $0.log = { logs.add($0) } }) { f in
            let (_, answer) = await f.guest.ask(request("scripted"), to: f.host)
            #expect(answer.done != nil)
        }
        // Read after the stop, which waited for the request's task (where a trace is logged).
        #expect(logs.all.contains("stopped"))
        #expect(!logs.all.contains { $0.hasPrefix("timing: ") })
        #expect(TimingTrace.parse("homebase: stopped") == nil)
    }
}
