// The real programs a bench starts (relay, homebase, llama-server) and the CLIs it runs to set
// them up. Every child is SIGKILLed at `stopAll()` and on SIGINT/SIGTERM of the bench.
import Foundation
import Glibc
import Synchronization

public struct BenchError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// A started child process.
public struct Child: Sendable {
    public let pid: Int32
    public let name: String
}

public final class Processes: Sendable {
    /// Throwaway directory: every program's config and data live under it.
    public let work: String
    private let running = Mutex<[Int32: Process]>([:])
    nonisolated(unsafe) private static var current: Processes?

    public init(prefix: String) throws {
        work = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        Self.current = self
        for sig in [SIGINT, SIGTERM] {
            signal(sig) { s in
                Processes.current?.stopAll()
                _exit(128 + s)
            }
        }
    }

    /// The environment every program gets: config and data under `work` only.
    public var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = work + "/config"
        env["XDG_DATA_HOME"] = work + "/data"
        return env
    }

    /// Starts `program` in the background, output to `work/<log>`.
    @discardableResult
    public func start(_ program: String, _ args: [String], log: String) throws -> Child {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = args
        p.environment = environment
        let path = work + "/" + log
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = FileHandle(forWritingAtPath: path)!
        p.standardOutput = handle
        p.standardError = handle
        p.standardInput = FileHandle.nullDevice
        try p.run()
        running.withLock { $0[p.processIdentifier] = p }
        return Child(pid: p.processIdentifier, name: (program as NSString).lastPathComponent)
    }

    /// Runs `program` to its end; its exit status and stdout (stderr appended to work/stderr.log).
    public func run(_ program: String, _ args: [String]) throws -> (status: Int32, out: String) {
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
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs a CLI that must succeed; its stdout.
    public func must(_ program: String, _ args: [String]) throws -> String {
        let r = try run(program, args)
        guard r.status == 0 else {
            throw BenchError("\((program as NSString).lastPathComponent) \(args.prefix(3).joined(separator: " ")) exited \(r.status); logs in \(work)")
        }
        return r.out
    }

    public func kill(_ c: Child) {
        let p = running.withLock { $0.removeValue(forKey: c.pid) }
        Glibc.kill(c.pid, SIGCONT)
        Glibc.kill(c.pid, SIGKILL)
        p?.waitUntilExit()
    }

    /// SIGSTOP: the process keeps its sockets open and answers nothing (a frozen machine).
    public func freeze(_ c: Child) { Glibc.kill(c.pid, SIGSTOP) }
    public func thaw(_ c: Child) { Glibc.kill(c.pid, SIGCONT) }

    public func isRunning(_ c: Child) -> Bool { running.withLock { $0[c.pid]?.isRunning ?? false } }

    public func stopAll() {
        for (pid, _) in running.withLock({ $0 }) {
            Glibc.kill(pid, SIGCONT)
            Glibc.kill(pid, SIGKILL)
        }
        running.withLock { $0 = [:] }
    }

    public func read(_ log: String) -> String { (try? String(contentsOfFile: work + "/" + log, encoding: .utf8)) ?? "" }

    /// Polls `condition` every 50 ms until it holds or `seconds` pass (a bound, not a measure).
    public func waitUntil(_ seconds: Double, _ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw BenchError("timed out waiting for \(what); logs in \(work)")
    }

    public static func freePort() throws -> Int {
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
        guard ok else { throw BenchError("no free port") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    public static func canConnect(_ port: Int) -> Bool {
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
