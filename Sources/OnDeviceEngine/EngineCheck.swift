import Foundation
import Glibc

/// Whether the engine binary runs at all: `llama-server --version` exits 0. Asked before a
/// model is blamed for an engine that exited on it: a broken binary (missing library, wrong
/// architecture) would otherwise mark every model `unsupported`, for good.
public struct EngineCheck: Sendable {
    /// Longest wait for `--version` (it answers at once when the binary runs).
    public var timeout: Duration = .seconds(10)
    public var poll: Duration = .milliseconds(10)

    public init(timeout: Duration = .seconds(10), poll: Duration = .milliseconds(10)) {
        self.timeout = timeout; self.poll = poll
    }

    /// nil when `binary --version` exits 0; else why not, with the last line it printed.
    public func problem(binary: String) async -> String? {
        let out = NSTemporaryDirectory() + "homebase-engine-check-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        defer { unlink(out) }
        let child: ChildProcess
        do { child = try ChildProcess.spawn(binary, ["--version"], logPath: out) } catch { return "\(error)" }
        let start = ContinuousClock.now
        while child.isRunning, ContinuousClock.now - start < timeout {
            try? await Task.sleep(for: poll)
        }
        if child.isRunning {
            await child.terminate(grace: .milliseconds(200))
            return "no answer to --version within \(timeout)"
        }
        let status = child.exitStatus() ?? 0
        if status == 0 { return nil }
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let last = text.split(whereSeparator: \.isNewline).last.map { String($0.prefix(200)) }
        return "--version: " + ChildProcess.describe(status) + (last.map { ": \($0)" } ?? "")
    }
}
