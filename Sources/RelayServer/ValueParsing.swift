import Basics
import Signing
import RelayWire

// Parsers for setting values: durations ("500ms", "30s", "10m", "2h", "7d"), byte sizes
// ("4096", "64KiB", "64MiB", "1GiB"), counts and rates. Each returns nil on anything else, and
// the loader names the key and the expected form.

enum ValueParsing {
    static let durationForm = "a number with a unit: 250ms, 30s, 10m, 2h or 7d"
    static let sizeForm = "a byte count, optionally with a unit: 4096, 64KiB, 4MiB, 1GiB"

    /// The shared grammar (`Basics.parseDuration`); the relay refuses a bare number.
    static func duration(_ s: String) -> Duration? { parseDuration(s, bareNumber: .refused) }

    static func size(_ s: String) -> Int? {
        let units: [(String, Int)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("", 1)]
        for (suffix, mult) in units where s.hasSuffix(suffix) {
            let number = s.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy(\.isASCIIDigit), let n = Int(number), n <= Int.max / mult else { continue }
            return n * mult
        }
        return nil
    }

    static func count(_ s: String, min: Int = 1) -> Int? {
        guard !s.isEmpty, s.allSatisfy(\.isASCIIDigit), let n = Int(s), n >= min else { return nil }
        return n
    }

    static func rate(_ s: String) -> Double? {
        guard let d = Double(s), d.isFinite, d > 0 else { return nil }
        return d
    }

    /// Comma-separated keys of 64 hex digits (at least one).
    static func keys(_ s: String) -> [Bytes32]? {
        var out: [Bytes32] = []
        for word in s.split(separator: ",") {
            guard let key = PublicKey(hex: String(word.trimmed)) else { return nil }
            out.append(key)
        }
        return out.isEmpty ? nil : out
    }

    /// "host:port" or "[v6]:port" or ":port" (all interfaces of IPv4).
    static func listen(_ s: String) -> (String, UInt16)? {
        guard let colon = s.lastIndex(of: ":"), let port = UInt16(s[s.index(after: colon)...]) else { return nil }
        var host = String(s[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { host = "0.0.0.0" }
        return (host, port)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Duration {
    /// Whole milliseconds (negative durations read as 0).
    var milliseconds: Int64 {
        let (s, atto) = components
        return Swift.max(0, s * 1000 + atto / 1_000_000_000_000_000)
    }

    /// For `--help` and logs: the largest unit that divides evenly.
    var settingText: String {
        let ms = milliseconds
        for (unit, size) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)] where ms >= size && ms % size == 0 {
            return "\(ms / size)\(unit)"
        }
        return "\(ms)ms"
    }
}

func sizeText(_ n: Int) -> String {
    for (unit, size) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where n >= size && n % size == 0 {
        return "\(n / size)\(unit)"
    }
    return "\(n)"
}
