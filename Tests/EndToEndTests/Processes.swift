import Foundation
import Glibc

/// The programs under test, run as real processes: the executables next to this test bundle
/// (`swift build --build-tests` builds them), the engine from `scripts/engine/install.sh`.
struct Binaries {
    let directory: String
    let engine: String
    let model: String

    static func locate() throws -> Binaries {
        let env = ProcessInfo.processInfo.environment
        let dir = env["HOMEBASE_BIN_DIR"]
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
        let engineDir = env["HOMEBASE_ENGINE_DIR"] ?? NSHomeDirectory() + "/.cache/homebase/engine"
        let b = Binaries(directory: dir, engine: engineDir + "/bin/llama-server",
                         model: engineDir + "/models/tiny-seed0.gguf")
        for path in [b.path("homebase-relay"), b.path("homebase"), b.path("guest"), b.engine, b.model]
        where !FileManager.default.fileExists(atPath: path) {
            throw Failure("\(path) is missing: run `make engine` and `swift build --build-tests` first")
        }
        return b
    }

    func path(_ program: String) -> String { directory + "/" + program }
}

struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Every process one test starts, SIGKILLed at `stopAll()` (llama-server is slow on SIGTERM,
/// and Foundation's children inherit a blocked SIGTERM).
final class Processes: @unchecked Sendable {  // used from one test task only
    let work: String
    var running: [Process] = []

    init() throws {
        work = NSTemporaryDirectory() + "homebase-e2e-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    /// The environment every program gets: config and data under `work` only.
    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = work + "/config"
        env["XDG_DATA_HOME"] = work + "/data"
        return env
    }

    /// Starts `program` in the background; output to `work/<log>`.
    @discardableResult
    func start(_ program: String, _ args: [String], log: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        p.environment = environment
        _ = FileManager.default.createFile(atPath: work + "/" + log, contents: nil)
        let handle = FileHandle(forWritingAtPath: work + "/" + log)!
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        try p.run()
        running.append(p)
        return p
    }

    /// Runs `program` to its end; returns its exit status and stdout (stderr goes to a log).
    /// A run longer than `within` seconds is killed and fails the test (a bound, not a measure).
    func run(_ program: String, _ args: [String], within seconds: Double = 180) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        p.environment = environment
        let pipe = Pipe()
        p.standardOutput = pipe
        let errLog = work + "/stderr.log"
        if !FileManager.default.fileExists(atPath: errLog) { _ = FileManager.default.createFile(atPath: errLog, contents: nil) }
        let errHandle = FileHandle(forWritingAtPath: errLog)!
        errHandle.seekToEndOfFile()
        p.standardError = errHandle
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let overdue = DispatchWorkItem { if p.isRunning { Glibc.kill(p.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: overdue)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        overdue.cancel()
        if p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL {
            throw Failure("\((program as NSString).lastPathComponent) \(args.first ?? "") did not end within \(Int(seconds)) s; logs in \(work)")
        }
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func kill(_ p: Process) {
        if p.isRunning { Glibc.kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    func stopAll() {
        for p in running { kill(p) }
        running = []
    }

    func read(_ log: String) -> String { (try? String(contentsOfFile: work + "/" + log, encoding: .utf8)) ?? "" }

    /// Polls `condition` every 50 ms until it holds or `seconds` pass (a bound, not an assertion of speed).
    func waitUntil(_ seconds: Double, _ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw Failure("timed out waiting for \(what); logs in \(work)")
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { ptr in
            ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0
            }
        }
        guard ok else { throw Failure("no free port") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &addr) { ptr in
            ptr.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// The dim line after a `guest chat` answer: `[homebase · first token 12 ms · 40 tok/s ...]`.
struct AnswerLine {
    let brain: String
    let line: String

    init(_ output: String) throws {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("[") && $0.hasSuffix("]") }) else {
            throw Failure("no answer line in: \(output)")
        }
        self.line = String(line)
        brain = String(line.dropFirst().prefix { $0 != " " && $0 != "]" })
    }
}
