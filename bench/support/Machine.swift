// What the numbers were measured on, and the resident memory of the processes measured.
import Glibc

public enum Machine {
    public static var cores: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// The first three fields of /proc/loadavg: other work on the machine skews every figure.
    public static var loadAverage: String {
        firstLine("/proc/loadavg").split(separator: " ").prefix(3).joined(separator: " ")
    }

    public static var cpuModel: String {
        for line in lines("/proc/cpuinfo") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") { return String(line[line.index(after: colon)...]).trimmed }
        }
        return "unknown"
    }

    public static var kernel: String {
        var u = utsname()
        guard uname(&u) == 0 else { return "unknown" }
        return withUnsafeBytes(of: u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// One line for the report header.
    public static var summary: String { "\(cores) vCPU (nproc), \(cpuModel), Linux \(kernel)" }

    /// VmRSS of a process in KiB (nil when it is gone).
    public static func rssKiB(pid: Int32) -> Int? {
        for line in lines("/proc/\(pid)/status") where line.hasPrefix("VmRSS:") {
            return Int(line.dropFirst(6).trimmed.split(separator: " ").first ?? "")
        }
        return nil
    }

    /// VmHWM (peak RSS) of a process in KiB.
    public static func peakRssKiB(pid: Int32) -> Int? {
        for line in lines("/proc/\(pid)/status") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst(6).trimmed.split(separator: " ").first ?? "")
        }
        return nil
    }

    static func lines(_ path: String) -> [Substring] {
        guard let f = fopen(path, "r") else { return [] }
        defer { fclose(f) }
        var out: [Substring] = []
        var buf = [CChar](repeating: 0, count: 4096)
        while fgets(&buf, Int32(buf.count), f) != nil {
            let s = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            out.append(Substring(s.hasSuffix("\n") ? String(s.dropLast()) : s))
        }
        return out
    }

    static func firstLine(_ path: String) -> String { lines(path).first.map(String.init) ?? "unknown" }
}

extension StringProtocol {
    var trimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\n" }.reversed())
    }
}

extension Machine {
    /// Raises the soft open-file limit to the hard one (inherited by the children started after):
    /// a thousand connections need more than a default 1,024 descriptors. Returns the limit.
    @discardableResult
    public static func raiseFileLimit() -> Int {
        var r = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
        r.rlim_cur = r.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &r)
        return Int(r.rlim_cur)
    }
}
