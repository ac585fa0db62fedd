import Dispatch
import Glibc
import Synchronization

/// `homebase-relay probe ...`: the command-line face of `RelayProbe`.
public enum ProbeCommand {
    /// Blocking entry point for the `homebase-relay` executable: runs the probe, prints the
    /// report (stdout) or the one-line reason (stderr), returns the exit status (0, 1 failed, 2 usage).
    public static func main(_ arguments: [String]) -> Int32 {
        let status = Mutex<Int32>(1)
        let done = DispatchSemaphore(value: 0)
        Task {
            let s = await run(arguments, out: { write(1, $0) }, err: { write(2, $0) })
            status.withLock { $0 = s }
            done.signal()
        }
        done.wait()
        return status.withLock { $0 }
    }

    /// The probe with its output handed to `out` / `err` (one line each, newline included).
    public static func run(_ arguments: [String], out: (String) -> Void, err: (String) -> Void) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") { out(ProbeOptions.usage); return 0 }
        do throws(ProbeError) {
            let options = try ProbeOptions(arguments: arguments)
            if arguments.contains("--token") {
                err("homebase-relay probe: warning: --token is visible to other users in the process list; use --token-file FILE\n")
            }
            let report = try await RelayProbe.run(options)
            out(report.line + "\n")
            return 0
        } catch {
            err("homebase-relay probe: \(error)\n")
            if case .usage = error { err(ProbeOptions.usage) }
            return error.exitCode
        }
    }

    private static func write(_ fd: Int32, _ s: String) {
        _ = s.utf8CString.withUnsafeBufferPointer { p in Glibc.write(fd, p.baseAddress, p.count - 1) }
    }
}
