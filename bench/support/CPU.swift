// CPU time spent by each hop (#24): user + system of a child from /proc/PID/stat (every thread,
// the dead ones too), and of this process (the in-process guest) from getrusage.
import Foundation
import Glibc

public enum CPU {
    /// Seconds of CPU (user + system) `pid` has used so far; nil when it is gone.
    public static func seconds(pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Seconds of CPU (user + system) this process has used so far.
    public static func selfSeconds() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6
            + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
    }
}

/// CPU seconds of several processes over chosen stretches of a run (the relayed answers only, say).
public final class CPUMeter: @unchecked Sendable {  // used from one task at a time
    /// Name → pid; "self" (pid 0) is this process.
    public let processes: [(name: String, pid: Int32)]
    public private(set) var spent: [String: Double] = [:]
    private var started: [String: Double] = [:]

    public init(_ processes: [(name: String, pid: Int32)]) { self.processes = processes }

    private func now(_ pid: Int32) -> Double { pid == 0 ? CPU.selfSeconds() : (CPU.seconds(pid: pid) ?? 0) }

    public func start() { for p in processes { started[p.name] = now(p.pid) } }

    public func stop() {
        for p in processes { spent[p.name, default: 0] += now(p.pid) - (started[p.name] ?? now(p.pid)) }
    }

    /// Milliseconds of CPU per 1,000 `tokens` for `name`.
    public func msPer1000(_ name: String, tokens: Int) -> Double {
        tokens > 0 ? (spent[name] ?? 0) * 1000 * 1000 / Double(tokens) : .nan
    }
}
