import Foundation
import Testing
import TestSupport
import Wire
@testable import RelayServer

let relayBinary = packageRoot.appendingPathComponent(".build/debug/homebase-relay").path

/// `homebase-relay serve` as a child process; the port is read from its "listening on" log line.
final class RelayProcessHandle: @unchecked Sendable {
    let process = Process()
    let port: UInt16
    /// The loopback /metrics port ("metrics=127.0.0.1:PORT" in the same line).
    let metricsPort: UInt16?
    private let stderr = Pipe()

    init(dataDir: String, extra: [String] = []) throws {
        guard FileManager.default.isExecutableFile(atPath: relayBinary) else {
            throw TestSetupError("build the executable first: swift build --build-tests (missing \(relayBinary))")
        }
        let (exe, args) = ChildSpawner.wrap(relayBinary, ["serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--log-level", "info",
                                                          "--close-timeout", "200ms", "--metrics-listen", "127.0.0.1:0"] + extra)
        process.executableURL = URL(fileURLWithPath: exe)
        process.arguments = args
        process.standardError = stderr
        // Not swift test's stdout: a relay outliving this process must not hold that pipe open.
        process.standardOutput = FileHandle.nullDevice
        let child = process
        try ChildSpawner.run { try child.run() }
        var line = "", said = "" // said: its last non-empty line (why it exited)
        while !line.contains("listening on") {
            line = ""
            while let b = try stderr.fileHandleForReading.read(upToCount: 1), !b.isEmpty, b != Data("\n".utf8) {
                line += String(decoding: b, as: UTF8.self)
            }
            if !line.isEmpty { said = line }
            if !process.isRunning { process.waitUntilExit(); throw TestSetupError("relay exited (\(process.terminationReason == .uncaughtSignal ? "signal" : "status") \(process.terminationStatus)): \(said)") }
        }
        guard let r = line.range(of: "127.0.0.1:"), let p = UInt16(line[r.upperBound...].prefix { $0.isNumber }) else {
            throw TestSetupError("no port in \(line)")
        }
        port = p
        metricsPort = line.range(of: "metrics=127.0.0.1:").flatMap { UInt16(line[$0.upperBound...].prefix { $0.isNumber }) }
        // Keep draining stderr so the child never blocks on a full pipe; kept in <data-dir>/relay.log.
        let handle = stderr.fileHandleForReading
        let logPath = dataDir + "/relay.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = FileHandle(forWritingAtPath: logPath)
        Thread.detachNewThread { while let d = try? handle.read(upToCount: 4096), !d.isEmpty { log?.write(d) } }
    }

    var origin: String { "ws://127.0.0.1:\(port)" }

    func signal(_ s: Int32) { kill(process.processIdentifier, s) }
    func wait() -> Int32 { process.waitUntilExit(); return process.terminationStatus }
}

/// Runs the executable to completion: (status, stderr).
func runRelay(_ args: [String], env: [String: String] = [:]) throws -> (Int32, String) {
    let r = try ChildProcesses(prefix: "relay-run").capture(relayBinary, args, environment: env)
    return (r.status, r.err)
}

@Suite(.serialized) struct ProcessTests {
    func device(_ r: RelayProcessHandle, _ loop: LoopThread, _ key: SigningKeyBox) throws -> TestClient {
        let c = try TestClient.connect(loop: loop.loop, port: r.port)
        try c.authenticate(key: key, origin: r.origin)
        guard case .authOK = try c.next() else { throw TestSetupError("no auth-ok") }
        return c
    }

    @Test func killDashNineLosesNoStoredMailAndDedupeGivesExactlyOnce() throws {
        let dir = try temporaryDirectory("relay")
        let loop = try LoopThread()
        defer { loop.stop() }
        let aKey = SigningKeyBox(), bKey = SigningKeyBox()
        var relay = try RelayProcessHandle(dataDir: dir)
        let a = try device(relay, loop, aKey)
        _ = try backlog(a)
        let first = (0..<5).map { _ in frameID() }
        for id in first { a.mail(to: bKey.publicKey, id: id, [1]); #expect(try a.next() == .stored(frameID: id)) }
        var application: [Bytes16] = [] // what the receiving app processes, after dedupe by frame id
        var seen: Set<Bytes16> = []
        func take(_ rs: [RelayFrame.Receive]) { for r in rs where seen.insert(r.frameID).inserted { application.append(r.frameID) } }
        let b = try device(relay, loop, bKey)
        take(try backlog(b))
        for id in first.prefix(2) { b.send(.ack(frameID: id)) }
        try expectStillWorks(b)
        let second = (0..<3).map { _ in frameID() }
        for id in second {
            a.mail(to: bKey.publicKey, id: id, [2])
            #expect(try a.next() == .stored(frameID: id))
            guard case .receive(let r) = try b.next() else { Issue.record("not delivered live"); return }
            take([r])
        }
        relay.signal(SIGKILL)
        _ = relay.wait()
        relay = try RelayProcessHandle(dataDir: dir)
        defer { relay.signal(SIGTERM); _ = relay.wait() }
        let again = try backlog(try device(relay, loop, bKey))
        #expect(Set(again.map(\.frameID)) == Set(first.dropFirst(2) + second))
        take(again)
        #expect(application == first + second)
    }

    @Test func sigtermSendsRestartingAndExitsCleanly() throws {
        let dir = try temporaryDirectory("relay")
        let loop = try LoopThread()
        defer { loop.stop() }
        let relay = try RelayProcessHandle(dataDir: dir, extra: ["--restart-delay", "1500ms"])
        let c = try device(relay, loop, SigningKeyBox())
        #expect(try c.next() == .queueEmpty)
        relay.signal(SIGTERM)
        let (frames, _) = try c.untilClosed()
        #expect(frames.contains(.restarting(reconnectAfterMs: 1500)))
        #expect(relay.wait() == 0)
    }

    @Test func badFlagExitsTwoNamingTheKey() throws {
        let (status, err) = try runRelay(["serve", "--max-ttl", "forever"])
        #expect(status == 2)
        #expect(err.contains("max-ttl"))
        #expect(err.contains("forever"))
        let (s2, e2) = try runRelay(["serve", "--no-such-flag", "1"])
        #expect(s2 == 2)
        #expect(e2.contains("no-such-flag"))
        let (s3, _) = try runRelay(["probe"])
        #expect(s3 == 2)
    }

    @Test func configPrecedenceIsFileThenEnvironmentThenFlags() throws {
        let dir = try temporaryDirectory("relay")
        let file = dir + "/relay.conf"
        try "# test\norigin = ws://from-file:1\nlisten = 127.0.0.1:0\ndata-dir = \(dir)\n".write(toFile: file, atomically: true, encoding: .utf8)
        func origin(_ args: [String], _ env: [String: String]) throws -> String {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: relayBinary)
            p.arguments = ["serve", "--config", file] + args
            p.environment = env
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice  // never the test runner's stdout: see ProcessBox
            try p.run()
            var text = ""
            while !text.contains("admission=") {
                // One byte at a time: read(upToCount:) on a pipe waits for the whole count.
                guard let d = try err.fileHandleForReading.read(upToCount: 1), !d.isEmpty else { break }
                text += String(decoding: d, as: UTF8.self)
            }
            kill(p.processIdentifier, SIGTERM)
            p.waitUntilExit()
            return text.components(separatedBy: "origin=").dropFirst().first?.components(separatedBy: " ").first ?? ""
        }
        #expect(try origin([], [:]) == "ws://from-file:1")
        #expect(try origin([], ["HOMEBASE_RELAY_ORIGIN": "ws://from-env:2"]) == "ws://from-env:2")
        #expect(try origin(["--origin", "ws://from-flag:3"], ["HOMEBASE_RELAY_ORIGIN": "ws://from-env:2"]) == "ws://from-flag:3")
    }
}
