// What the numbers were measured on: printed above the table.
import CSodium
import Glibc

enum Machine {
    static var cores: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// The first "model name" line of /proc/cpuinfo, or "unknown".
    static var cpuModel: String {
        guard let file = fopen("/proc/cpuinfo", "r") else { return "unknown" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 512)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("model name"), let colon = text.firstIndex(of: ":") {
                return text[text.index(after: colon)...].trimmingSpaces
            }
        }
        return "unknown"
    }

    static var kernel: String {
        var u = utsname()
        guard uname(&u) == 0 else { return "unknown" }
        return withUnsafeBytes(of: u.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// The first three fields of /proc/loadavg: other work on the machine skews every figure.
    static var loadAverage: String {
        guard let file = fopen("/proc/loadavg", "r") else { return "unknown" }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return "unknown" }
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    static var libsodium: String { String(cString: sodium_version_string()) }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\n" || $0 == "\t" }.reversed())
    }
}
