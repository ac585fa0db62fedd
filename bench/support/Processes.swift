// The real programs a bench starts (relay, homebase, llama-server) and the CLIs it runs to set
// them up: TestSupport's ChildProcesses (the tests' copy), plus a name per child and a signal
// handler. Every child is SIGKILLed at `stopAll()` and on SIGINT/SIGTERM of the bench.
import Foundation
import Glibc
import TestSupport

public typealias BenchError = SetupError

/// A started child process.
public struct Child: Sendable {
    public let pid: Int32
    public let name: String
}

public final class Processes: Sendable {
    private let children: ChildProcesses
    nonisolated(unsafe) private static var current: Processes?

    /// Throwaway directory: every program's config and data live under it.
    public var work: String { children.work }
    /// The environment every program gets: config and data under `work` only.
    public var environment: [String: String] { children.environment }

    public init(prefix: String) throws {
        children = try ChildProcesses(prefix: prefix)
        Self.current = self
        for sig in [SIGINT, SIGTERM] {
            signal(sig) { s in
                Processes.current?.stopAll()
                _exit(128 + s)
            }
        }
    }

    /// Starts `program` in the background, output to `work/<log>`.
    @discardableResult
    public func start(_ program: String, _ args: [String], log: String) throws -> Child {
        let p = try children.start(program, args, log: log)
        return Child(pid: p.processIdentifier, name: (program as NSString).lastPathComponent)
    }

    /// Runs `program` to its end (no time bound); its exit status and stdout (stderr appended
    /// to work/stderr.log).
    public func run(_ program: String, _ args: [String]) throws -> (status: Int32, out: String) {
        try children.run(program, args, within: nil)
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
        if let p = children.process(c.pid) { children.kill(p) } else { Glibc.kill(c.pid, SIGKILL) }
    }

    /// SIGSTOP: the process keeps its sockets open and answers nothing (a frozen machine).
    public func freeze(_ c: Child) { Glibc.kill(c.pid, SIGSTOP) }
    public func thaw(_ c: Child) { Glibc.kill(c.pid, SIGCONT) }

    public func isRunning(_ c: Child) -> Bool { children.process(c.pid)?.isRunning ?? false }

    /// SIGKILLs every child without waiting (also from the signal handler).
    public func stopAll() { children.stopAll(wait: false) }

    public func read(_ log: String) -> String { children.read(log) }

    /// Polls `condition` every 50 ms until it holds or `seconds` pass (a bound, not a measure).
    public func waitUntil(_ seconds: Double, _ what: String, _ condition: () throws -> Bool) throws {
        try children.waitUntil(seconds, what, condition)
    }

    public static func freePort() throws -> Int { try TestSupport.freePort() }
    public static func canConnect(_ port: Int) -> Bool { TestSupport.canConnect(port) }
}
