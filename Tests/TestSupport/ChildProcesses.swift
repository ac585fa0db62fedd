import Foundation
import Glibc
import Synchronization

/// Every real program one test (or bench) starts, SIGKILLed at `stopAll()`: llama-server is slow
/// on SIGTERM, and Foundation's children inherit a blocked SIGTERM. Config and data of every
/// program live under `work` (XDG_CONFIG_HOME, XDG_DATA_HOME).
public final class ChildProcesses: Sendable {
    public let work: String
    private let running = Mutex<[Int32: Process]>([:])

    public init(prefix: String = "homebase-e2e") throws {
        work = try temporaryDirectory(prefix)
    }

    /// The environment every program gets: config and data under `work` only.
    public var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = work + "/config"
        env["XDG_DATA_HOME"] = work + "/data"
        return env
    }

    /// Starts `program` in the background, stdout and stderr to `work/<log>`, stdin from
    /// /dev/null (or `input`); `environment` defaults to the work directory's.
    @discardableResult
    public func start(_ program: String, _ args: [String], log: String, environment: [String: String]? = nil,
                      input: Pipe? = nil) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        p.environment = environment ?? self.environment
        let handle = try logHandle(log, truncate: true)
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = input ?? FileHandle.nullDevice
        try p.run()
        running.withLock { $0[p.processIdentifier] = p }
        return p
    }

    /// Starts `program` with a pipe on its stdin (returned); output to `work/<log>`.
    public func startInteractive(_ program: String, _ args: [String], log: String,
                                 environment: [String: String]? = nil) throws -> (Process, FileHandle) {
        let input = Pipe()
        signal(SIGPIPE, SIG_IGN)  // a write to a child that died fails the test; it must not kill the runner
        let p = try start(program, args, log: log, environment: environment, input: input)
        return (p, input.fileHandleForWriting)
    }

    /// Runs `program` to its end; its exit status and stdout (stderr appended to work/stderr.log).
    /// With `within`, a run longer than that many seconds is SIGKILLed and throws (a bound, not
    /// a measure).
    public func run(_ program: String, _ args: [String], within seconds: Double? = 180) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        p.environment = environment
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = try logHandle("stderr.log", truncate: false)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let overdue = DispatchWorkItem { if p.isRunning { Glibc.kill(p.processIdentifier, SIGKILL) } }
        if let seconds { DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: overdue) }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        overdue.cancel()
        if let seconds, p.terminationReason == .uncaughtSignal && p.terminationStatus == SIGKILL {
            throw SetupError("\((program as NSString).lastPathComponent) \(args.first ?? "") did not end within \(Int(seconds)) s; logs in \(work)")
        }
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs `program` to its end; its exit status, stdout and stderr (`environment` defaults to
    /// the work directory's).
    public func capture(_ program: String, _ args: [String],
                        environment: [String: String]? = nil) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        p.environment = environment ?? self.environment
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // Both pipes drained at once, so a chatty stderr cannot block the child.
        let errData = Mutex<Data?>(nil)
        let reader = Thread { let d = err.fileHandleForReading.readDataToEndOfFile(); errData.withLock { $0 = d } }
        reader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while errData.withLock({ $0 == nil }) { Thread.sleep(forTimeInterval: 0.01) }
        let errText = errData.withLock { String(decoding: $0 ?? Data(), as: UTF8.self) }
        return (p.terminationStatus, String(decoding: outData, as: UTF8.self), errText)
    }

    /// SIGKILL (after SIGCONT, in case it was frozen), then waits for it.
    public func kill(_ p: Process) {
        running.withLock { _ = $0.removeValue(forKey: p.processIdentifier) }
        if p.isRunning {
            Glibc.kill(p.processIdentifier, SIGCONT)
            Glibc.kill(p.processIdentifier, SIGKILL)
        }
        p.waitUntilExit()
    }

    /// The registered child with this pid (nil once killed or stopped).
    public func process(_ pid: Int32) -> Process? { running.withLock { $0[pid] } }

    /// SIGSTOP: the process keeps its sockets open and answers nothing (a frozen machine).
    public func freeze(_ p: Process) { Glibc.kill(p.processIdentifier, SIGSTOP) }
    public func thaw(_ p: Process) { Glibc.kill(p.processIdentifier, SIGCONT) }

    /// SIGKILLs every child still registered; `wait` false for a signal handler (no waiting there).
    public func stopAll(wait: Bool = true) {
        let all = running.withLock { r in defer { r = [:] }; return r }
        for (pid, p) in all {
            Glibc.kill(pid, SIGCONT)
            Glibc.kill(pid, SIGKILL)
            if wait { p.waitUntilExit() }
        }
    }

    public func read(_ log: String) -> String { (try? String(contentsOfFile: work + "/" + log, encoding: .utf8)) ?? "" }

    /// Appends `text` to `work/<log>`.
    public func append(_ log: String, _ text: String) {
        guard let h = try? logHandle(log, truncate: false) else { return }
        h.write(Data(text.utf8))
        try? h.close()
    }

    /// Polls `condition` every 50 ms until it holds or `seconds` pass (a bound, not a measure).
    public func waitUntil(_ seconds: Double, _ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw SetupError("timed out waiting for \(what); logs in \(work)")
    }

    /// The port a peer announced as its first "PORT n" line in `work/<log>` (the Python peers do).
    public func announcedPort(in log: String, _ what: String, within seconds: Double = 30) throws -> Int {
        var port = 0
        try waitUntil(seconds, what + "'s port") {
            port = Int(read(log).split(separator: "\n").first { $0.hasPrefix("PORT ") }?.dropFirst(5) ?? "") ?? 0
            return port > 0
        }
        return port
    }

    /// `work/<log>` opened for writing at its end (emptied first when `truncate`).
    private func logHandle(_ log: String, truncate: Bool) throws -> FileHandle {
        let path = work + "/" + log
        if truncate || !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        guard let h = FileHandle(forWritingAtPath: path) else { throw SetupError("cannot write \(path)") }
        h.seekToEndOfFile()
        return h
    }
}

/// Runs `program` to its end with stdin from /dev/null and stderr dropped; its exit status and
/// stdout. `environment` defaults to this process's.
public func runProgram(_ program: String, _ args: [String],
                       environment: [String: String]? = nil) throws -> (status: Int32, out: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: program)
    p.arguments = args
    if let environment { p.environment = environment }
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}
